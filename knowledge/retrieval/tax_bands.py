"""Which Income Tax band a person's income falls in on a day, read from the knowledge base's own
band table: the threshold units in force that give a band's range of taxable income
("Band Taxable income Tax rate: Basic rate £12,571 to £50,270 20%"). The limits are data, so a
new tax year's table (or an expert's correction of one) moves everyone to the right band
without a change here; a statement's band (knowledge.text.tax_bands) is then compared with it.

Only a table for the person's nation counts: Scotland's bands are its own, and where the
knowledge base holds none for a nation, the band is left unknown rather than guessed from
another nation's."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import threading
import time
from decimal import Decimal

from django.conf import settings

from knowledge.domain.profile import Person
from knowledge.domain.temporal import TemporalStatus
from knowledge.models import AtomicUnit, Concept
from knowledge.retrieval.params import Profile
from knowledge.text.tax_bands import TAX_BANDS

_lock = threading.Lock()
_held: dict[tuple[str, dt.date], tuple[float, dict[str, Decimal]]] = {}
_DAYS_HELD = 64

# A band's row: its name, its range of taxable income and its rate.
_BAND_ROW = re.compile(
    r"\b(basic|higher) rate\b[^£%.;]{0,40}?£(\d[\d,]*) to £(\d[\d,]*)[^£.;]{0,20}?\d+(?:\.\d+)?%",
    re.IGNORECASE,
)


def band_upper_limits(nation: str | None, day: dt.date) -> dict[str, Decimal]:
    """The top of each band whose row is in force on `day` for `nation` (England when not
    given: gov.uk writes for England unless it says otherwise). Held for
    QUERY_VOCABULARY_CHECK_SECONDS, like the query vocabulary: a search with an income then
    costs no query, and an expert's correction of the table shows within that interval."""
    key = (nation or "england", day)
    with _lock:
        held = _held.get(key)
    if held is not None and time.monotonic() - held[0] < settings.QUERY_VOCABULARY_CHECK_SECONDS:
        return held[1]
    limits = _limits_read(*key)
    with _lock:
        if len(_held) >= _DAYS_HELD:  # the days searched on are few; bound them all the same
            _held.clear()
        _held[key] = (time.monotonic(), limits)
    return limits


def band_limits_forget() -> None:
    """The next search reads the table afresh (a test's database is not the last one's)."""
    with _lock:
        _held.clear()


def _limits_read(nation: str, day: dt.date) -> dict[str, Decimal]:
    # Plain indexed queries (the category's concepts, then their thresholds), the row pattern
    # and the temporal rule in Python: this runs on every search with an income, and the
    # in_force expression's planning, or a pattern over every unit, costs milliseconds.
    concepts = list(
        Concept.objects.filter(taxonomy_id__startswith="income_tax.").values_list("pk", flat=True)
    )
    rows = (
        AtomicUnit.objects.alive()
        .filter(concept_id__in=concepts, unit_type=AtomicUnit.Type.THRESHOLD)
        .only("text", "applicability", "valid_from", "valid_to", "superseded_date", "superseded_by")
        .order_by()
    )
    limits: dict[str, Decimal] = {}
    for unit in rows:
        nations = (unit.applicability or {}).get("nations")
        if nations and nation not in nations:
            continue
        # A period that has ended is never current, whatever came after it: no need to ask.
        ended = unit.valid_to is not None and unit.valid_to < day
        if (
            ended
            or unit.temporal_status_on(day, newer_period_known=False) != TemporalStatus.CURRENT
        ):
            continue
        for match in _BAND_ROW.finditer(unit.text):
            band, top = match.group(1).lower(), Decimal(match.group(3).replace(",", ""))
            # Two rows for one band on one day disagree only across nations' tables, which
            # the nations keep apart; the lower reading is the safer one.
            limits[band] = min(limits.get(band, top), top)
    return limits


def income_bands(income: Decimal, nation: str | None, day: dt.date) -> frozenset[str] | None:
    """The bands `income` may fall in: one, or higher-or-additional when the table in force
    gives the basic band's top but not the higher's; None when there is no table."""
    limits = band_upper_limits(nation, day)
    if "basic" not in limits:
        return None
    if income <= limits["basic"]:
        return frozenset({"basic"})
    if "higher" not in limits:
        return frozenset(TAX_BANDS[1:])
    return frozenset({"higher" if income <= limits["higher"] else "additional"})


def person_on(profile: Profile, day: dt.date) -> Person:
    """The profile's person on `day`, with the tax bands their income falls in."""
    person = profile.person(on=day)
    if person.annual_income is None:
        return person
    bands = income_bands(person.annual_income, person.nation, day)
    return dataclasses.replace(person, tax_bands=bands)
