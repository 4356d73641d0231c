"""Reads of the knowledge base, shared by the screens, the API and the CLI."""

from __future__ import annotations

from django.db.models import Count, Q

from knowledge.models import AtomicUnit, Category, Concept, Source


def knowledge_base_counts() -> dict[str, int]:
    return {
        "categories": Category.objects.count(),
        "concepts": Concept.objects.filter(status=Concept.Status.ACTIVE).count(),
        "sources": Source.objects.count(),
        "units": AtomicUnit.objects.alive().count(),
    }


def concept_counts_by_category() -> list[tuple[str, int]]:
    """(category name, active concepts) in taxonomy order."""
    rows = Category.objects.annotate(
        active=Count("concepts", filter=Q(concepts__status=Concept.Status.ACTIVE))
    ).order_by("order", "name")
    return [(row.name, row.active) for row in rows]
