"""What a knowledge base would serve wrongly on a day, counted over all its living units:

(a) stale as current: units a search would serve as current on the day although the period
    their own quote states (a tax, benefit or academic year, "for 2024 to 2025", "from
    6 April 2024 to 5 April 2025"), or else their section's heading path, ended before it;
    and money figures of a concept whose figures are set each year (`yearly_figures`) with
    no end date (an undated yearly figure is never known to hold for ever);
(b) one statement, several units: groups of living units sharing one evidence quote (the
    same page and the same quote, whitespace and case aside).

A read over the database; `manage.py check_served` prints it.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field

from knowledge.domain.temporal import TemporalStatus
from knowledge.extraction.dating import is_yearly_figure
from knowledge.models import AtomicUnit, PageSnapshot
from knowledge.text.dates import Validity, counts_academic_years, find_validities
from knowledge.text.normalise import normalise_inline

# Why a unit counts as stale: the period its quote states, its headings' period, or an
# undated yearly figure.
QUOTE_PERIOD = "quote states a period that ended"
HEADING_PERIOD = "heading states a period that ended"
YEARLY_OPEN = "yearly figure with no end date"


@dataclass(frozen=True)
class StaleUnit:
    unit_id: int
    concept: str
    why: str
    stated: str  # the period phrase read, or the unit's own dates for an undated yearly figure
    ended_on: dt.date | None
    text: str


@dataclass(frozen=True)
class SharedQuote:
    source_url: str
    quote: str
    unit_ids: list[int]


@dataclass
class ServedCheck:
    as_of: dt.date
    living_units: int
    stale: list[StaleUnit] = field(default_factory=list)
    shared_quotes: list[SharedQuote] = field(default_factory=list)

    @property
    def counts(self) -> dict[str, int]:
        return {"stale_as_current": len(self.stale), "shared_quote_groups": len(self.shared_quotes)}


def served_check(*, as_of: dt.date) -> ServedCheck:
    """Both counts of the module's docstring for the knowledge base on `as_of`."""
    living = AtomicUnit.objects.alive()
    check = ServedCheck(as_of=as_of, living_units=living.count())
    check.stale = _stale_as_current(as_of)
    check.shared_quotes = _shared_quotes()
    return check


def _served_as_current(day: dt.date):
    """Living units a default search serves as current on `day`: current by the temporal
    rule and still stated by their page's current version then."""
    return (
        AtomicUnit.objects.alive()
        .with_temporal_status(day)
        .filter(temporal_status=TemporalStatus.CURRENT.value)
        .exclude(unconfirmed_at__date__lte=day)
        .select_related("concept")
        .only(
            "id",
            "text",
            "evidence_quote",
            "evidence_start",
            "value_amount",
            "value_unit",
            "figures",
            "valid_from",
            "valid_to",
            "snapshot_id",
            "concept__taxonomy_id",
            "concept__yearly_figures",
        )
        .order_by("concept__taxonomy_id", "id")
    )


def _stale_as_current(day: dt.date) -> list[StaleUnit]:
    units = list(_served_as_current(day))
    pages = _PageReadings(PageSnapshot.objects.filter(pk__in={u.snapshot_id for u in units}))
    stale = []
    for unit in units:
        found = _ended_period(unit, pages, day)
        if found is not None:
            stale.append(found)
        elif not unit.valid_to and is_yearly_figure(
            unit.concept, unit.value_amount, unit.value_unit, unit.figures, unit.text
        ):
            stated = f"valid from {unit.valid_from or '…'}, no end"
            stale.append(_stale(unit, YEARLY_OPEN, stated, None))
    return stale


def _ended_period(unit: AtomicUnit, pages: _PageReadings, day: dt.date) -> StaleUnit | None:
    """The period the unit's quote (with its text) states, else its headings': stale when
    every period stated is closed and the latest ended before `day`. An open period ("from
    6 April 2025", "2024 to 2025 onwards") still runs; a lone deadline ("before 31 January")
    is no period of the figure."""
    academic = pages.academic(unit.snapshot_id)
    for why, words in (
        (QUOTE_PERIOD, f"{unit.evidence_quote} {unit.text}"),
        (HEADING_PERIOD, pages.headings(unit.snapshot_id, unit.evidence_start)),
    ):
        periods = [v for v in find_validities(words, academic=academic) if v.valid_from]
        if not periods:
            continue
        if any(v.valid_to is None for v in periods):
            return None
        latest = max(periods, key=lambda v: v.valid_to)
        return _stale(unit, why, latest.phrase, latest.valid_to) if _ended(latest, day) else None
    return None


def _ended(validity: Validity, day: dt.date) -> bool:
    return validity.valid_to is not None and validity.valid_to < day


def _stale(unit: AtomicUnit, why: str, stated: str, ended_on: dt.date | None) -> StaleUnit:
    return StaleUnit(unit.pk, unit.concept.taxonomy_id, why, stated, ended_on, unit.text[:160])


class _PageReadings:
    """Per snapshot, read once: whether it counts in academic years, and its sections."""

    def __init__(self, snapshots):
        self._academic: dict[int, bool] = {}
        self._sections: dict[int, list[dict]] = {}
        for snapshot in snapshots.only("id", "text", "sections").iterator():
            self._academic[snapshot.pk] = counts_academic_years(snapshot.text)
            self._sections[snapshot.pk] = snapshot.sections or []

    def academic(self, snapshot_id: int) -> bool:
        return self._academic.get(snapshot_id, False)

    def headings(self, snapshot_id: int, offset: int) -> str:
        """The heading path of the innermost section holding `offset`."""
        holding = [
            s for s in self._sections.get(snapshot_id, []) if s["start"] <= offset <= s["end"]
        ]
        return " / ".join(holding[-1].get("heading_path", [])) if holding else ""


def _shared_quotes() -> list[SharedQuote]:
    groups: dict[tuple[int, str], list[int]] = defaultdict(list)
    urls: dict[int, str] = {}
    rows = (
        AtomicUnit.objects.alive()
        .order_by("source_id", "id")
        .values_list("id", "source_id", "source__url", "evidence_quote")
    )
    for unit_id, source_id, url, quote in rows.iterator():
        groups[(source_id, normal_quote(quote))].append(unit_id)
        urls[source_id] = url
    return [
        SharedQuote(urls[source_id], quote, ids)
        for (source_id, quote), ids in groups.items()
        if len(ids) > 1
    ]


def normal_quote(quote: str) -> str:
    """A quote as compared for sharing: entities, quotes and spaces plain, case aside."""
    return normalise_inline(quote).lower()
