"""The words around the taxonomy: the glossary (abbreviations and everyday names of concepts
and categories) and the life-event map (broad situations and the searches they expand into).
Both travel in the taxonomy file; a load creates only what the database lacks, as for
concepts, since editors change them through audited screens afterwards."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from knowledge.domain.profile import Employment
from knowledge.models import Category, Concept, ConceptAlias, GlossaryTerm, LifeEvent

MIN_SEARCHES, MAX_SEARCHES = 3, 5


class GlossarySpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    term: str = Field(min_length=1, max_length=64)
    means: str = Field(min_length=1, max_length=200)
    match_case: bool = False
    concept: str | None = None
    category: str | None = None


class SuggestForSpec(BaseModel):
    """Who is in a life situation, for suggestions before they ask: every condition given
    must hold (a life event lists alternatives)."""

    model_config = ConfigDict(extra="forbid")

    age_min: int | None = Field(None, ge=0, le=120)
    age_max: int | None = Field(None, ge=0, le=120)
    employment: list[Employment] | None = None
    benefits: list[str] | None = None
    youngest_child_age_max: int | None = Field(None, ge=0, le=25)
    income_min: int | None = Field(None, ge=0)
    income_max: int | None = Field(None, ge=0)
    student_loan: bool | None = None

    @model_validator(mode="after")
    def _says_something(self) -> SuggestForSpec:
        if not self.model_dump(exclude_none=True):
            raise ValueError("names no condition: give at least one, or leave suggest_for out")
        return self


class LifeEventSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    slug: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)
    name: str = Field(min_length=1, max_length=200)
    triggers: list[str] = Field(min_length=1)
    searches: list[str] = Field(min_length=MIN_SEARCHES, max_length=MAX_SEARCHES)
    suggest_for: list[SuggestForSpec] = Field(default_factory=list)

    @field_validator("triggers", "searches")
    @classmethod
    def _no_blank_lines(cls, values: list[str]) -> list[str]:
        cleaned = [" ".join(value.split()) for value in values]
        if not all(cleaned):
            raise ValueError("must not hold blank entries")
        return cleaned


def glossary_ensure(specs: list[GlossarySpec], report) -> None:
    """Create the readings the database lacks. A term naming a concept or category that does
    not exist is an error of the file (raised as ValueError; the caller's transaction rolls
    back)."""
    held = {
        (term.lower(), means.lower())
        for term, means in GlossaryTerm.objects.values_list("term", "means")
    }
    for spec in specs:
        key = (spec.term.strip().lower(), spec.means.strip().lower())
        if key in held:
            continue
        GlossaryTerm.objects.create(
            term=spec.term.strip(),
            means=spec.means.strip(),
            match_case=spec.match_case,
            concept=_concept_named(spec.concept, term=spec.term),
            category=_category_named(spec.category, term=spec.term),
        )
        held.add(key)
        report.glossary_added.append(f"{spec.term} → {spec.means}")


def _concept_named(taxonomy_id: str | None, *, term: str) -> Concept | None:
    if not taxonomy_id:
        return None
    concept = Concept.objects.filter(taxonomy_id=taxonomy_id).first()
    if concept is None:
        alias = ConceptAlias.objects.filter(alias=taxonomy_id).select_related("concept").first()
        concept = alias.concept if alias else None
    if concept is None:
        raise ValueError(f"glossary term {term!r}: no concept {taxonomy_id!r}")
    return concept


def _category_named(slug: str | None, *, term: str) -> Category | None:
    if not slug:
        return None
    category = Category.objects.filter(slug=slug).first()
    if category is None:
        raise ValueError(f"glossary term {term!r}: no category {slug!r}")
    return category


def life_events_ensure(specs: list[LifeEventSpec], report) -> None:
    """Create the life events the database lacks. A held event with no `suggest_for` yet
    takes the file's (a field added since it was loaded, not an editor's change undone)."""
    held = {event.slug: event for event in LifeEvent.objects.all()}
    for spec in specs:
        suggest_for = [who.model_dump(exclude_none=True) for who in spec.suggest_for]
        if spec.slug in held:
            if suggest_for and not held[spec.slug].suggest_for:
                LifeEvent.objects.filter(pk=held[spec.slug].pk).update(suggest_for=suggest_for)
            continue
        LifeEvent.objects.create(
            slug=spec.slug,
            name=spec.name.strip(),
            triggers=spec.triggers,
            searches=spec.searches,
            suggest_for=suggest_for,
        )
        report.life_events_added.append(spec.slug)


def glossary_export() -> list[dict]:
    rows = []
    for term in GlossaryTerm.objects.select_related("concept", "category").order_by(
        "term", "means"
    ):
        item = {"term": term.term, "means": term.means}
        if term.match_case:
            item["match_case"] = True
        if term.concept_id:
            item["concept"] = term.concept.taxonomy_id
        if term.category_id:
            item["category"] = term.category.slug
        rows.append(item)
    return rows


def life_events_export() -> list[dict]:
    rows = []
    for e in LifeEvent.objects.order_by("slug"):
        row = {"slug": e.slug, "name": e.name, "triggers": list(e.triggers)}
        row["searches"] = list(e.searches)
        if e.suggest_for:
            row["suggest_for"] = list(e.suggest_for)
        rows.append(row)
    return rows
