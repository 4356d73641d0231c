"""Freshness: when a page's current version changes, each live unit of the page has its
quote looked up in the new text. Found, the unit is confirmed by that version and moves onto
it (its offsets follow the new text); not found, it is unconfirmed from the new version's
date and no longer served as current from then until an expert confirms, supersedes or
retires it. A figure dated by the capture of its page (a yearly figure printed with no year)
is extended to the end of each newer capture's year that still prints it, a re-fetch of
unchanged content included; one that no longer prints it keeps the end it had."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db import transaction
from django.utils import timezone

from knowledge.domain.extraction import ValidityBasis
from knowledge.extraction.dating import capture_year, snapshot_capture_year
from knowledge.models import AtomicUnit, PageSnapshot, Source
from knowledge.text.dates import counts_academic_years, hint_years
from knowledge.text.evidence import locate_quote


@dataclass
class Reverification:
    source_id: int
    snapshot_id: int | None
    confirmed: int = 0  # quote found in the current version (moved onto it, or already there)
    moved: int = 0  # of those, units of an earlier version now pointing into the current one
    unconfirmed: list[int] = field(default_factory=list)  # units whose quote is gone
    concepts_touched: set[str] = field(default_factory=set)  # taxonomy ids of those units


def source_reverify(*, source_id: int) -> Reverification:
    """Look up every live unit's quote of the source in its current version. Idempotent: a
    second run finds the same; one transaction, the source's units locked meanwhile."""
    with transaction.atomic():
        source = Source.objects.select_for_update().get(pk=source_id)
        report = Reverification(source_id, source.current_snapshot_id)
        if source.current_snapshot_id is None:
            return report
        current = PageSnapshot.objects.only(
            "id", "text", "fetched_at", "public_updated_at", "period_hint", "captured_on"
        ).get(pk=source.current_snapshot_id)
        now = timezone.now()
        held = set(
            AtomicUnit.objects.alive()
            .filter(snapshot_id=current.pk)
            .values_list("concept_id", "fingerprint")
        )
        units = (
            AtomicUnit.objects.alive()
            .filter(source_id=source_id)
            .select_for_update(of=("self",))
            .select_related("concept", "snapshot")
        )
        for unit in units:
            _reverify(unit, current, now=now, report=report, held=held)
    return report


def _version_date(version: PageSnapshot, now):
    """From when the version that no longer states a unit speaks: the page's own date when
    it has one (a capture replayed today may be years old), else now."""
    published = version.public_updated_at
    return published if published is not None and published < now else now


def _unconfirmed_from(unit, current: PageSnapshot, now):
    """From when a unit is no longer stated: the current version's date, but never within
    the years the unit's own version names for its figures ('2015-16'): a page record's
    date can be years older than its text (a page updated in 2024 carrying 2014's date), and
    a version stating a unit for 2015-16 is the word on 2015-16, whatever came later."""
    since = _version_date(current, now)
    own = unit.snapshot
    if own is None or not own.period_hint:
        return since
    years = hint_years(own.period_hint, academic=counts_academic_years(own.text))
    if years is None:
        return since
    after = dt.datetime.combine(years[1] + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC)
    return min(max(since, after), now)


def _confirmed_by_hand(unit, current: PageSnapshot) -> bool:
    """An expert confirmed the unit after this version was read: their word stands until a
    newer version comes."""
    return (
        unit.unconfirmed_at is None
        and bool(unit.confirmed_at)
        and unit.confirmed_at > current.fetched_at
    )


def _reverify(unit, current: PageSnapshot, *, now, report: Reverification, held: set) -> None:
    """`held`: (concept, fingerprint) of the current version's own units: a found unit that
    one of them already states is confirmed where it is, not moved to double it."""
    if unit.snapshot_id == current.pk:
        found = unit.evidence_start, unit.evidence_end
    else:
        located = locate_quote(unit.evidence_quote, current.text)
        found = (located.start, located.end) if located is not None and located.exact else None
    if found is None and _confirmed_by_hand(unit, current):
        report.confirmed += 1
        return
    if found is None:
        if unit.unconfirmed_at is None:
            unit.unconfirmed_at = _unconfirmed_from(unit, current, now)
            unit.save(update_fields=["unconfirmed_at", "updated_at"])
        report.unconfirmed.append(unit.pk)
        report.concepts_touched.add(unit.concept.taxonomy_id)
        return
    fields = ["confirmed_at", "unconfirmed_at", "updated_at"]
    if unit.snapshot_id != current.pk and (unit.concept_id, unit.fingerprint) not in held:
        start, end = found
        unit.snapshot_id, unit.evidence_start, unit.evidence_end = current.pk, start, end
        unit.evidence_quote, unit.evidence_verified = current.text[start:end], True
        fields += [
            "snapshot",
            "evidence_start",
            "evidence_end",
            "evidence_quote",
            "evidence_verified",
        ]
        report.moved += 1
    if unit.validity_basis == ValidityBasis.CAPTURE:
        year_end = snapshot_capture_year(current)[1]
        if unit.valid_to is None or unit.valid_to < year_end:
            unit.valid_to = year_end
            fields.append("valid_to")
    unit.confirmed_at, unit.unconfirmed_at = now, None
    unit.save(update_fields=fields)
    report.confirmed += 1


def capture_units_extend(
    *, snapshot: PageSnapshot, captured_on: dt.date, period_hint: str = ""
) -> int:
    """A new capture of a version already stored (the same content fetched again, or a page
    file of another day): its yearly figures printed with no year hold for that capture's year
    too. Returns how many units were extended; running it again extends none."""
    year_end = capture_year(text=snapshot.text, period_hint=period_hint, captured_on=captured_on)[1]
    units = AtomicUnit.objects.alive().filter(
        snapshot=snapshot, validity_basis=ValidityBasis.CAPTURE, valid_to__lt=year_end
    )
    return units.update(valid_to=year_end, updated_at=timezone.now())
