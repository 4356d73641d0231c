"""Load the strict taxonomy from its YAML file into the database, idempotently."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml
from django.db import transaction
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from knowledge.models import TAXONOMY_ID_PATTERN, AtomicUnit, Category, Concept, ConceptAlias
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
    # Concepts proposed in bootstrap mode travel with the file until an editor approves them.
    status: Literal["active", "proposed"] = "active"

    @model_validator(mode="after")
    def _aliases_are_dotted(self) -> ConceptSpec:
        import re

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

    @model_validator(mode="after")
    def _ids_unique(self) -> TaxonomySpec:
        seen: dict[str, str] = {}
        for category in self.categories:
            if category.slug in seen:
                raise ValueError(f"category slug {category.slug!r} appears twice")
            seen[category.slug] = "category"
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
    created: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    reinstated: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    aliases_added: list[str] = field(default_factory=list)
    categories_changed: list[str] = field(default_factory=list)
    unchanged: int = 0

    @property
    def change_count(self) -> int:
        return sum(
            len(items)
            for items in (
                self.created,
                self.updated,
                self.reinstated,
                self.retired,
                self.deleted,
                self.aliases_added,
                self.categories_changed,
            )
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
    """Make the database match `spec`: update by id, retire (never delete) concepts that
    hold units, delete empty concepts that left the file, keep aliases and proposed concepts.

    One transaction: on any error nothing is changed. `dry_run` rolls back at the end.
    """
    report = TaxonomyLoadReport()
    with transaction.atomic():
        _refuse_ids_that_are_aliases(spec)
        categories = _upsert_categories(spec, report)
        wanted = _upsert_concepts(spec, categories, report)
        _retire_or_delete_missing(wanted, report)
        _delete_empty_missing_categories(spec)
        if dry_run:
            transaction.set_rollback(True)
    return report


def _refuse_ids_that_are_aliases(spec: TaxonomySpec) -> None:
    file_ids = {concept.id for category in spec.categories for concept in category.concepts}
    clashes = ConceptAlias.objects.filter(alias__in=file_ids).select_related("concept")
    for clash in clashes:
        raise TaxonomyError(
            f"{clash.alias} is in the file as a concept but the database keeps it as an alias "
            f"of {clash.concept.taxonomy_id} (renamed by an editor): rename it in the file too"
        )


def _upsert_categories(spec: TaxonomySpec, report: TaxonomyLoadReport) -> dict[str, Category]:
    existing = {category.slug: category for category in Category.objects.all()}
    result = {}
    for order, item in enumerate(spec.categories, start=1):
        values = {"name": item.name, "description": item.description.strip(), "order": order}
        category = existing.get(item.slug)
        if category is None:
            category = Category.objects.create(slug=item.slug, **values)
            report.categories_changed.append(f"+{item.slug}")
        elif _assign_changed(category, values):
            category.save()
            report.categories_changed.append(f"~{item.slug}")
        result[item.slug] = category
    return result


def _upsert_concepts(
    spec: TaxonomySpec, categories: dict[str, Category], report: TaxonomyLoadReport
) -> set[str]:
    existing = {concept.taxonomy_id: concept for concept in Concept.objects.all()}
    aliases = dict(ConceptAlias.objects.values_list("alias", "concept__taxonomy_id"))
    wanted: set[str] = set()
    for category_spec in spec.categories:
        for item in category_spec.concepts:
            wanted.add(item.id)
            concept = _upsert_concept(item, categories[category_spec.slug], existing, report)
            _add_aliases(item, concept, aliases, report)
    return wanted


def _upsert_concept(item: ConceptSpec, category: Category, existing, report) -> Concept:
    values = {
        "category": category,
        "name": item.name.strip(),
        "description": " ".join(item.description.split()),
    }
    concept = existing.get(item.id)
    if concept is None:
        report.created.append(item.id)
        return Concept.objects.create(taxonomy_id=item.id, status=item.status, **values)
    if concept.status != item.status:
        values["status"] = item.status
        report.reinstated.append(item.id)
        _assign_changed(concept, values)
        concept.save()
    elif _assign_changed(concept, values):
        report.updated.append(item.id)
        concept.save()
    else:
        report.unchanged += 1
    return concept


def _add_aliases(item: ConceptSpec, concept: Concept, aliases: dict[str, str], report) -> None:
    for alias in item.aliases:
        owner = aliases.get(alias)
        if owner == item.id:
            continue
        if owner is not None:
            raise TaxonomyError(f"alias {alias} of {item.id} already belongs to {owner}")
        if Concept.objects.filter(taxonomy_id=alias).exists():
            raise TaxonomyError(f"alias {alias} of {item.id} is the id of another concept")
        ConceptAlias.objects.create(alias=alias, concept=concept)
        report.aliases_added.append(alias)


def _retire_or_delete_missing(wanted: set[str], report: TaxonomyLoadReport) -> None:
    # Proposed concepts wait for editors; retired ones stay as they are (an editor's merge
    # or retirement is audited and may be reverted, so its concept must still exist).
    leaving = Concept.objects.exclude(taxonomy_id__in=wanted).filter(status=Concept.Status.ACTIVE)
    with_units = set(
        AtomicUnit.objects.filter(concept__in=leaving).values_list("concept_id", flat=True)
    )
    for concept in leaving:
        if concept.pk in with_units:
            if concept.status != Concept.Status.RETIRED:
                concept.status = Concept.Status.RETIRED
                concept.save(update_fields=["status", "updated_at"])
                report.retired.append(concept.taxonomy_id)
        else:
            report.deleted.append(concept.taxonomy_id)
            concept.delete()


def _delete_empty_missing_categories(spec: TaxonomySpec) -> None:
    slugs = [category.slug for category in spec.categories]
    Category.objects.exclude(slug__in=slugs).filter(concepts__isnull=True).delete()


def _assign_changed(instance, values: dict) -> bool:
    changed = False
    for name, value in values.items():
        if getattr(instance, name) != value:
            setattr(instance, name, value)
            changed = True
    return changed


# --- export ------------------------------------------------------------------------------------

EXPORT_VERSION = 1


def taxonomy_export() -> dict:
    """The database's taxonomy in the file's shape: categories in order, their active and
    proposed concepts with aliases (retired concepts are left out, as import retires them)."""
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
    return {"version": EXPORT_VERSION, "categories": categories}


def taxonomy_dump(*, fmt: str = "yaml") -> str:
    data = taxonomy_export()
    if fmt == "json":
        import json

        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if fmt != "yaml":
        raise TaxonomyError(f"format: yaml or json, not {fmt!r}")
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100)
