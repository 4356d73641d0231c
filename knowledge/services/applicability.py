"""Who each unit is for (knowledge.text.applicability), read when a page's units are stored
and, for units stored before, by `manage.py read_applicability`. The same reading serves
every provider: it needs only the unit's words, its heading path and its page. A unit an
expert corrected keeps the applicability it had then, or the one they set (its
`machine_version` holds the machine's): the machine never overwrites an expert's unit."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from django.db import transaction
from django.db.models import Q

from knowledge.models import AtomicUnit, PageSnapshot, Source
from knowledge.text.exceptions import (
    PageReading,
    page_births_read,
    page_reading,
    statement_applicability,
)
from knowledge.text.nations import page_lines
from knowledge.text.sections import section_at


def unit_applicability(unit: AtomicUnit, snapshot: PageSnapshot, page: PageReading) -> dict:
    heading_path = (section_at(snapshot.sections or [], unit.evidence_start) or {}).get(
        "heading_path"
    ) or []
    return statement_applicability(
        unit.text, heading_path=heading_path, page=page, unit_type=unit.unit_type
    ).as_json()


def snapshot_page_reading(snapshot: PageSnapshot) -> PageReading:
    """The page's reading; a part of a guide stored as a page of its own (".../what-youll-get")
    takes the guide's dates of birth when it states none: the guide says whom its subject is
    for once, on its first part."""
    reading = page_reading(_title(snapshot), page_lines(snapshot.text, snapshot.sections or []))
    if reading.births.line:
        return reading
    guide = _guide_snapshot(snapshot.source.url)
    if guide is None:
        return reading
    births = page_births_read(_title(guide), page_lines(guide.text, guide.sections or []))
    return dataclasses.replace(reading, births=births)


def _title(snapshot: PageSnapshot) -> str:
    return snapshot.source.title or (snapshot.raw or {}).get("title", "")


def _guide_snapshot(url: str) -> PageSnapshot | None:
    parent = url.rstrip("/").rsplit("/", 1)[0]
    if parent.count("/") < 3:  # the site's root: no guide
        return None
    guide = Source.objects.filter(url=parent).select_related("current_snapshot").first()
    return guide.current_snapshot if guide is not None else None


def snapshot_applicability_read(snapshot: PageSnapshot) -> int:
    """Read who each living unit of `snapshot` is for; returns how many changed. Call inside
    the transaction that stored them."""
    page = snapshot_page_reading(snapshot)
    changed = []
    for unit in _machine_set(AtomicUnit.objects.alive().filter(snapshot=snapshot)):
        read = unit_applicability(unit, snapshot, page)
        if read != unit.applicability:
            unit.applicability = read
            changed.append(unit)
    AtomicUnit.objects.bulk_update(changed, ["applicability"], batch_size=500)
    return len(changed)


def applicability_read_all(*, progress: Callable[[int], None] = lambda _: None) -> int:
    """Read who every living unit is for, page version by page version, each in a
    transaction of its own; returns how many units changed."""
    snapshot_ids = (
        AtomicUnit.objects.alive().values_list("snapshot_id", flat=True).distinct().order_by()
    )
    changed = 0
    for snapshot in PageSnapshot.objects.filter(pk__in=list(snapshot_ids)).select_related("source"):
        with transaction.atomic():
            changed += snapshot_applicability_read(snapshot)
        progress(1)
    return changed


def _machine_set(units) -> Iterable[AtomicUnit]:
    """Units whose applicability is still the page reading's to set: not an expert's, and not
    one a model gave with the unit (a model reads the sentence in context; the page reading
    fills in where it said nothing)."""
    said_by_model = Q(provider=AtomicUnit.Provider.OPENAI) & ~Q(applicability={})
    return (
        units.exclude(machine_version__has_key="applicability")
        .exclude(said_by_model)
        .only("id", "text", "unit_type", "evidence_start", "applicability", "snapshot_id")
    )
