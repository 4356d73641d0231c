"""Reads for the quality flags screen: the open flags, filtered, and how many of each kind."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.db.models import Count, QuerySet

from knowledge.models import QualityFlag

FLAGS_PER_PAGE = 100


@dataclass(frozen=True)
class FlagFilters:
    """What the editor narrowed the open flags to; empty values filter nothing."""

    kind: str = ""
    category: str = ""

    def query(self) -> str:
        return urlencode(
            [(k, v) for k, v in (("kind", self.kind), ("category", self.category)) if v]
        )


def flags_open(*, kind: str = "", category_slug: str = "") -> QuerySet[QualityFlag]:
    flags = QualityFlag.objects.filter(status=QualityFlag.Status.OPEN).select_related(
        "unit__concept__category", "unit__source", "suggested_concept"
    )
    if kind:
        flags = flags.filter(kind=kind)
    if category_slug:
        flags = flags.filter(unit__concept__category__slug=category_slug)
    return flags.order_by("-created_at", "-pk")


def flag_counts_by_kind() -> dict[str, int]:
    rows = (
        QualityFlag.objects.filter(status=QualityFlag.Status.OPEN)
        .values("kind")
        .annotate(n=Count("pk"))
    )
    return {row["kind"]: row["n"] for row in rows}
