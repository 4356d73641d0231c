"""Reads for the "Changes on gov.uk" screen: pages gov.uk changed or removed, what a change did
to their units, the concepts left with units no current version states, and the concepts
whose newest figures' period has ended (they need this year's figure)."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass

from django.db.models import Case, Count, F, Min, Prefetch, Q, QuerySet, When
from django.db.models.functions import Coalesce

from curation.models import AuditEvent, SupersedingCandidate
from knowledge.domain.temporal import TemporalStatus
from knowledge.models import AtomicUnit, Concept, PageSnapshot, Source
from knowledge.services.ingest import snapshot_recency

CHANGED_PAGES_LIMIT = 200
NEEDS_REVIEW_LIMIT = 200
SNAPSHOT_LIST_FIELDS = ("id", "source_id", "public_updated_at", "period_hint", "fetched_at")


def unconfirmed_units() -> QuerySet[AtomicUnit]:
    """Living units whose page's current version no longer states their quote."""
    return AtomicUnit.objects.alive().filter(unconfirmed_at__isnull=False).defer("embedding")


def changed_pages(*, limit: int = CHANGED_PAGES_LIMIT) -> list[Source]:
    """Changed and gone pages, newest first (a changed page by when it changed, a gone one by
    its last fetch), each with `unconfirmed` (its unconfirmed units, concept loaded) and
    `changed_on`."""
    units = unconfirmed_units().select_related("concept").order_by("concept__taxonomy_id", "pk")
    pages = (
        Source.objects.filter(status__in=[Source.Status.CHANGED, Source.Status.GONE])
        .annotate(changed_on=_changed_on())
        .prefetch_related(Prefetch("units", queryset=units, to_attr="unconfirmed"))
        .order_by(F("changed_on").desc(nulls_last=True), "-pk")
    )
    return list(pages[:limit])


def _changed_on():
    return Case(
        When(status=Source.Status.GONE, then=F("last_fetched_at")),
        default=Coalesce("last_changed_at", "last_fetched_at"),
    )


@dataclass(frozen=True)
class PageChange:
    """One page's latest change: the version before and the current one, the units the change
    left unconfirmed, the units extracted from the current version, and the superseding
    proposals that involve any of them."""

    source: Source
    previous: PageSnapshot | None
    current: PageSnapshot | None
    unconfirmed: list[AtomicUnit]
    new_units: list[AtomicUnit]
    candidates: list[SupersedingCandidate]


def page_change_get(*, source_id: int) -> PageChange:
    """Raises Source.DoesNotExist."""
    source = Source.objects.get(pk=source_id)
    current, previous = _current_and_previous(source)
    # A gone page states nothing any more: all its living units wait for a decision.
    to_decide = (
        AtomicUnit.objects.alive() if source.status == Source.Status.GONE else unconfirmed_units()
    )
    unconfirmed = list(
        to_decide.filter(source_id=source_id)
        .select_related("concept", "corrected_by")
        .order_by("concept__taxonomy_id", "ordinal")
    )
    new_units = _new_units(current)
    involved = [unit.pk for unit in unconfirmed + new_units]
    candidates = list(
        SupersedingCandidate.objects.filter(Q(older_id__in=involved) | Q(newer_id__in=involved))
        .select_related("older", "newer", "concept")
        .order_by("status", "-confidence", "pk")
    )
    return PageChange(source, previous, current, unconfirmed, new_units, candidates)


def _current_and_previous(source: Source) -> tuple[PageSnapshot | None, PageSnapshot | None]:
    """The current version and the latest one before it, by the order ingest chooses the
    current version in (the texts of those two only are loaded)."""
    versions = sorted(source.snapshots.only(*SNAPSHOT_LIST_FIELDS), key=snapshot_recency)
    ids = [version.pk for version in versions]
    if source.current_snapshot_id not in ids:
        return None, None
    position = ids.index(source.current_snapshot_id)
    wanted = ids[position - 1 : position + 1] if position else ids[:1]
    loaded = PageSnapshot.objects.defer("raw", "sections").in_bulk(wanted)
    previous = loaded[ids[position - 1]] if position else None
    return loaded[source.current_snapshot_id], previous


def _new_units(current: PageSnapshot | None) -> list[AtomicUnit]:
    """Living units extracted from the current version (not those an earlier version's units
    moved onto when their quote was found in it)."""
    if current is None:
        return []
    return list(
        AtomicUnit.objects.alive()
        .defer("embedding")
        .filter(snapshot_id=current.pk, created_at__gte=current.fetched_at)
        .select_related("concept")
        .order_by("concept__taxonomy_id", "ordinal")
    )


def unit_for_change_row(*, unit_id: int) -> AtomicUnit:
    """One unit as a row of the page-change screen shows it, removed ones included (a retired
    unit's row says so). Raises AtomicUnit.DoesNotExist."""
    return (
        AtomicUnit.objects.defer("embedding")
        .select_related("concept", "corrected_by")
        .get(pk=unit_id)
    )


def concepts_needing_review(*, limit: int = NEEDS_REVIEW_LIMIT) -> list[Concept]:
    """Concepts with at least one living unconfirmed unit, those waiting longest first; each
    with `unconfirmed_count`, `unconfirmed_since` and `unconfirmed_sources` (their pages)."""
    waiting = Q(units__deleted_at__isnull=True, units__unconfirmed_at__isnull=False)
    concepts = list(
        Concept.objects.annotate(
            unconfirmed_count=Count("units", filter=waiting),
            unconfirmed_since=Min("units__unconfirmed_at", filter=waiting),
        )
        .filter(unconfirmed_count__gt=0)
        .order_by("unconfirmed_since", "taxonomy_id")[:limit]
    )
    _attach_sources(concepts)
    return concepts


def _attach_sources(concepts: list[Concept]) -> None:
    pairs = list(
        unconfirmed_units()
        .filter(concept__in=concepts)
        .values_list("concept_id", "source_id")
        .distinct()
    )
    sources = Source.objects.only("id", "url", "title").in_bulk({pk for _, pk in pairs})
    for concept in concepts:
        concept.unconfirmed_sources = sorted(
            (sources[pk] for owner, pk in pairs if owner == concept.pk), key=lambda s: s.url
        )


@dataclass(frozen=True)
class YearlyFigureDue:
    """A concept whose newest figures' period has ended with nothing newer held: it needs
    this year's figure. `newest_from`..`ended_on` is the newest period held."""

    concept: Concept
    newest_from: dt.date | None
    ended_on: dt.date
    outdated_count: int


def concepts_needing_this_years_figure(
    *, day: dt.date, limit: int = NEEDS_REVIEW_LIMIT
) -> list[YearlyFigureDue]:
    """Concepts with living units outdated on `day` (the temporal rule's reading: their
    period ended and no unit of the concept starts after it), ended longest ago first."""
    outdated = (
        AtomicUnit.objects.alive()
        .filter(valid_to__lt=day)  # the rule's outdated units all end before the day
        .with_temporal_status(day)
        .filter(temporal_status=TemporalStatus.OUTDATED.value)
        .order_by("concept_id", "-valid_to", "valid_from")
        .values_list("concept_id", "valid_from", "valid_to")
    )
    newest: dict[int, tuple[dt.date | None, dt.date]] = {}
    counts: dict[int, int] = defaultdict(int)
    for concept_id, valid_from, valid_to in outdated:
        newest.setdefault(concept_id, (valid_from, valid_to))  # the latest end comes first
        counts[concept_id] += 1
    concepts = Concept.objects.only("id", "taxonomy_id", "name").in_bulk(list(newest))
    due = [
        YearlyFigureDue(concepts[pk], newest_from, ended_on, counts[pk])
        for pk, (newest_from, ended_on) in newest.items()
    ]
    due.sort(key=lambda d: (d.ended_on, d.concept.taxonomy_id))
    return due[:limit]


def decision_unit_id(*, event_id: int, actions: tuple[str, ...]) -> int:
    """The unit a confirmation or retirement was about. Raises AuditEvent.DoesNotExist when
    the event is not one of `actions`."""
    return AuditEvent.objects.values_list("target_id", flat=True).get(
        pk=event_id, action__in=actions, target_type="atomicunit"
    )
