"""The strict taxonomy's file (YAML or JSON): load it into the database, which creates only
what is missing, and export the database's taxonomy in the same shape."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml
from django.db import transaction
from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError, model_validator

from knowledge.models import TAXONOMY_ID_PATTERN, Category, Concept, ConceptAlias
from knowledge.services.vocabulary import (
    GlossarySpec,
    LifeEventSpec,
    glossary_ensure,
    glossary_export,
    life_events_ensure,
    life_events_export,
)
from knowledge.validation import first_error

DEFAULT_TAXONOMY_FILE = Path(__file__).resolve().parents[2] / "fixtures" / "taxonomy.yaml"


class TaxonomyError(ValueError):
    """The taxonomy file is malformed or contradicts the database; nothing was changed."""


class ConceptSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=TAXONOMY_ID_PATTERN, max_length=128)
    name: str = Field(min_length=1, max_length=200)
    description: str = Field(min_length=10)
    aliases: list[str] = Field(default_factory=list)
    # Its money figures are set each year (Concept.yearly_figures): one printed with no year
    # holds for the year its page was captured in.
    yearly_figures: StrictBool = False
    # Concepts proposed in bootstrap mode travel with the file until an editor approves them.
    status: Literal["active", "proposed"] = "active"

    @model_validator(mode="after")
    def _aliases_are_dotted(self) -> ConceptSpec:
        for alias in self.aliases:
            if not re.fullmatch(TAXONOMY_ID_PATTERN, alias):
                raise ValueError(f"alias {alias!r} of {self.id} is not a dotted taxonomy id")
        return self


class CategorySpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    slug: str = Field(pattern=r"^[a-z][a-z0-9_]*$", max_length=64)
    name: str = Field(min_length=1, max_length=128)
    description: str = ""
    concepts: list[ConceptSpec]


class TaxonomySpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    version: int
    categories: list[CategorySpec]
    glossary: list[GlossarySpec] = Field(default_factory=list)
    life_events: list[LifeEventSpec] = Field(default_factory=list)

    @model_validator(mode="after")
    def _ids_unique(self) -> TaxonomySpec:
        seen: dict[str, str] = {}
        for category in self.categories:
            if category.slug in seen:
                raise ValueError(f"category slug {category.slug!r} appears twice")
            seen[category.slug] = "category"
        slugs = [event.slug for event in self.life_events]
        if len(slugs) != len(set(slugs)):
            twice = sorted({slug for slug in slugs if slugs.count(slug) > 1})
            raise ValueError(f"life event slug {twice[0]!r} appears twice")
        readings = [(g.term.strip().lower(), g.means.strip().lower()) for g in self.glossary]
        if len(readings) != len(set(readings)):
            term, means = next(r for r in readings if readings.count(r) > 1)
            raise ValueError(f"glossary reading {term} → {means} appears twice")
        names: set[str] = set()
        for id_or_alias, owner in _all_ids(self):
            if id_or_alias in names:
                raise ValueError(f"taxonomy id or alias {id_or_alias!r} ({owner}) appears twice")
            names.add(id_or_alias)
        return self


def _all_ids(spec: TaxonomySpec):
    for category in spec.categories:
        for concept in category.concepts:
            yield concept.id, f"concept in {category.slug}"
            for alias in concept.aliases:
                yield alias, f"alias of {concept.id}"


@dataclass
class TaxonomyLoadReport:
    """What a load created, and where the database differs from the file (kept as it is)."""

    created: list[str] = field(default_factory=list)
    aliases_added: list[str] = field(default_factory=list)
    categories_created: list[str] = field(default_factory=list)
    glossary_added: list[str] = field(default_factory=list)
    life_events_added: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    unchanged: int = 0

    @property
    def change_count(self) -> int:
        return (
            len(self.created)
            + len(self.aliases_added)
            + len(self.categories_created)
            + len(self.glossary_added)
            + len(self.life_events_added)
        )


def taxonomy_parse(*, text: str, origin: str = "taxonomy") -> TaxonomySpec:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise TaxonomyError(f"{origin}: not valid YAML: {exc}") from exc
    try:
        return TaxonomySpec.model_validate(data)
    except ValidationError as exc:
        raise TaxonomyError(f"{origin}: {first_error(exc)}") from exc


def taxonomy_load_file(*, path: Path = DEFAULT_TAXONOMY_FILE, dry_run: bool = False):
    if not path.is_file():
        raise TaxonomyError(f"taxonomy file not found: {path}")
    spec = taxonomy_parse(text=path.read_text(encoding="utf-8"), origin=path.name)
    return taxonomy_load(spec=spec, dry_run=dry_run)


def taxonomy_load(*, spec: TaxonomySpec, dry_run: bool = False) -> TaxonomyLoadReport:
    """Create the categories, concepts and aliases of `spec` that the database lacks; never
    change or remove what it holds. Editors rename, edit, retire, approve and merge concepts
    through audited services, so where the database differs from the file the database is
    right: the difference is reported, not undone. Loading the same file again changes nothing.

    One transaction: on any error nothing is changed. `dry_run` rolls back at the end.
    """
    report = TaxonomyLoadReport()
    with transaction.atomic():
        categories = _categories_ensure(spec, report)
        known = _KnownIds.read()
        for category_spec in spec.categories:
            for item in category_spec.concepts:
                concept = _concept_ensure(item, categories[category_spec.slug], known, report)
                _aliases_ensure(item, concept, known, report)
        _report_database_only(spec, report)
        try:
            glossary_ensure(spec.glossary, report)
            life_events_ensure(spec.life_events, report)
        except ValueError as exc:
            raise TaxonomyError(str(exc)) from exc
        if dry_run:
            transaction.set_rollback(True)
    return report


@dataclass
class _KnownIds:
    """The database's concepts by taxonomy id and by alias, kept up to date as a load adds."""

    concepts: dict[str, Concept]
    aliases: dict[str, Concept]

    @classmethod
    def read(cls) -> _KnownIds:
        concepts = {c.taxonomy_id: c for c in Concept.objects.select_related("category")}
        by_pk = {concept.pk: concept for concept in concepts.values()}
        aliases = {
            alias: by_pk[concept_pk]
            for alias, concept_pk in ConceptAlias.objects.values_list("alias", "concept_id")
        }
        return cls(concepts=concepts, aliases=aliases)


def _categories_ensure(spec: TaxonomySpec, report: TaxonomyLoadReport) -> dict[str, Category]:
    existing = {category.slug: category for category in Category.objects.all()}
    names = {category.name: category.slug for category in existing.values()}
    result = {}
    for order, item in enumerate(spec.categories, start=1):
        category = existing.get(item.slug)
        if category is None:
            if item.name in names:
                raise TaxonomyError(
                    f"category {item.slug}: its name {item.name!r} belongs to category "
                    f"{names[item.name]} in the database"
                )
            category = Category.objects.create(
                slug=item.slug, name=item.name, description=item.description.strip(), order=order
            )
            report.categories_created.append(item.slug)
        else:
            wanted = {"name": item.name, "description": item.description.strip()}
            report.differences += _differences(f"category {item.slug}", category, wanted)
        result[item.slug] = category
    return result


def _concept_ensure(
    item: ConceptSpec, category: Category, known: _KnownIds, report: TaxonomyLoadReport
) -> Concept:
    """The concept the file's item names: the database's (reporting how it differs), the one
    an editor renamed or merged it into, or a new one."""
    concept = known.concepts.get(item.id)
    if concept is not None:
        wanted = {
            "category": category,
            "name": item.name.strip(),
            "description": " ".join(item.description.split()),
            "status": item.status,
            "yearly_figures": item.yearly_figures,
        }
        differences = _differences(item.id, concept, wanted)
        report.differences += differences
        report.unchanged += not differences
        return concept
    now = known.aliases.get(item.id)
    if now is not None:
        report.differences.append(
            f"{item.id}: renamed or merged by an editor, now {now.taxonomy_id} (kept)"
        )
        return now
    concept = Concept.objects.create(
        taxonomy_id=item.id,
        category=category,
        name=item.name.strip(),
        description=" ".join(item.description.split()),
        status=item.status,
        yearly_figures=item.yearly_figures,
    )
    known.concepts[item.id] = concept
    report.created.append(item.id)
    return concept


def _aliases_ensure(
    item: ConceptSpec, concept: Concept, known: _KnownIds, report: TaxonomyLoadReport
) -> None:
    for alias in item.aliases:
        owner = known.aliases.get(alias)
        if alias == concept.taxonomy_id or (owner is not None and owner.pk == concept.pk):
            continue  # already resolves to this concept (an editor may have renamed it so)
        if owner is not None or alias in known.concepts:
            holder = owner.taxonomy_id if owner is not None else "its own concept"
            report.differences.append(
                f"alias {alias} of {item.id}: the database resolves it to {holder} (kept)"
            )
            continue
        ConceptAlias.objects.create(alias=alias, concept=concept)
        known.aliases[alias] = concept
        report.aliases_added.append(alias)


def _report_database_only(spec: TaxonomySpec, report: TaxonomyLoadReport) -> None:
    """Living concepts the file does not name (approved bootstrap proposals, concepts taken
    out of the file): kept, since retiring them is an editor's audited decision."""
    named = {id_or_alias for id_or_alias, _ in _all_ids(spec)}
    database_only = (
        Concept.objects.exclude(status=Concept.Status.RETIRED)
        .exclude(taxonomy_id__in=named)
        .exclude(aliases__alias__in=named)
        .order_by("taxonomy_id")
    )
    for concept in database_only:
        report.differences.append(
            f"{concept.taxonomy_id}: in the database ({concept.status}), not in the file (kept)"
        )


def _differences(subject: str, instance, wanted: dict) -> list[str]:
    """How `instance` differs from the file's `wanted` values, one line per field."""
    lines = []
    for name, value in wanted.items():
        held = getattr(instance, name)
        if held != value:
            lines.append(
                f"{subject}: {name} differs: database {_shown(held)}, file {_shown(value)} (kept)"
            )
    return lines


def _shown(value) -> str:
    text = str(value)
    return repr(text if len(text) <= 60 else text[:57] + "…")


# --- export ------------------------------------------------------------------------------------

EXPORT_VERSION = 1


def taxonomy_export() -> dict:
    """The database's taxonomy in the file's shape: categories in order, their active and
    proposed concepts with aliases (retired concepts are left out; an import of the file
    leaves them retired)."""
    categories = []
    concepts = (
        Concept.objects.exclude(status=Concept.Status.RETIRED)
        .prefetch_related("aliases")
        .order_by("taxonomy_id")
    )
    by_category: dict[int, list[dict]] = {}
    for concept in concepts:
        item = {"id": concept.taxonomy_id, "name": concept.name, "description": concept.description}
        aliases = sorted(alias.alias for alias in concept.aliases.all())
        if aliases:
            item["aliases"] = aliases
        if concept.yearly_figures:
            item["yearly_figures"] = True
        if concept.status == Concept.Status.PROPOSED:
            item["status"] = "proposed"
        by_category.setdefault(concept.category_id, []).append(item)
    for category in Category.objects.order_by("order", "slug"):
        categories.append(
            {
                "slug": category.slug,
                "name": category.name,
                "description": category.description,
                "concepts": by_category.get(category.pk, []),
            }
        )
    return {
        "version": EXPORT_VERSION,
        "categories": categories,
        "glossary": glossary_export(),
        "life_events": life_events_export(),
    }


def taxonomy_dump(*, fmt: str = "yaml") -> str:
    data = taxonomy_export()
    if fmt == "json":
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if fmt != "yaml":
        raise TaxonomyError(f"format: yaml or json, not {fmt!r}")
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
