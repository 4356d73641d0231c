"""Which Income Tax band a person's income falls in on a day, read from the knowledge base's own
band table, and the person a profile describes on that day with those bands (`person_on`),
for the search, the suggestions and the answers' verification alike. The band table is the
threshold units in force that give a band's range of taxable income ("Band Taxable income Tax
rate: Basic rate £12,571 to £50,270 20%"). The limits are data, so a new tax year's table (or
an expert's correction of one) moves everyone to the right band without a change here; a
statement's band (knowledge.text.tax_bands) is then compared with it.

Only a table for the person's nation counts, and where the knowledge base holds none for a
nation, or its rows disagree, the band is left unknown rather than guessed. Scotland's bands
(starter, basic, intermediate, higher, advanced, top) are not the three that statements for
the rest of the UK name: a Scottish person's band is left unknown. An income under the Personal
Allowance counts as in the basic band: the band's top is what statements compare with
("within the basic Income Tax band")."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import threading
import time
from decimal import Decimal

from django.conf import settings

from knowledge.domain.profile import Person, Profile
from knowledge.domain.temporal import TemporalStatus
from knowledge.models import AtomicUnit, Concept
from knowledge.text.tax_bands import TAX_BANDS

_lock = threading.Lock()
_held: dict[tuple[str, dt.date], tuple[float, dict[str, Decimal]]] = {}
_DAYS_HELD = 64

# A band's row: its name, then its range of taxable income, in the forms gov.uk's tables take
# once read ("Basic rate £12,571 to £50,270 20%", "Band: Basic rate; Taxable income: £12,571
# to £50,270; Tax rate: 20%") and a sentence's ("higher rate 40% on taxable income from
# £50,271 to £125,140"); the row must give a rate, which a benefit's "higher rate £3,500" does
# not.
_BAND_NAME = re.compile(r"\b(basic|higher|additional) rate\b", re.IGNORECASE)
_RANGE = re.compile(r"£(\d[\d,]*) to £(\d[\d,]*)")
_RATE = re.compile(r"\d+(?:\.\d+)?%")
# Scotland's bands (starter, intermediate, …) are not England's three: none is read for it.
_SCOTLAND = re.compile(r"\bscot(?:land|tish)\b", re.IGNORECASE)


def band_rows(text: str) -> list[tuple[str, Decimal, Decimal]]:
    """(band, bottom, top) of each band row of the text. A row starting at £0 or £1 is of a
    table of taxable income after the Personal Allowance, which gross income is not compared
    with: not read."""
    names = list(_BAND_NAME.finditer(text))
    rows = []
    for number, name in enumerate(names):
        end = names[number + 1].start() if number + 1 < len(names) else len(text)
        row = text[name.end() : end]
        found = _RANGE.search(row)
        if found is None or not _RATE.search(row) or found.start() > 80:
            continue
        bottom, top = (Decimal(g.replace(",", "")) for g in found.groups())
        if bottom > 1:
            rows.append((name.group(1).lower(), bottom, top))
    return rows


def band_upper_limits(nation: str | None, day: dt.date) -> dict[str, Decimal]:
    """The top of each band whose row is in force on `day` for `nation` (England when not
    given: gov.uk writes for England unless it says otherwise); none for Scotland, whose
    bands are not these three. Held for
    QUERY_VOCABULARY_CHECK_SECONDS, like the query vocabulary: a search with an income then
    costs no query, and an expert's correction of the table shows within that interval."""
    key = (nation or "england", day)
    if key[0] == "scotland":
        return {}
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
    tops: dict[str, set[Decimal]] = {}
    for unit in rows:
        nations = (unit.applicability or {}).get("nations")
        if (nations and nation not in nations) or _SCOTLAND.search(unit.text):
            continue
        # A period that has ended is never current, whatever came after it: no need to ask.
        ended = unit.valid_to is not None and unit.valid_to < day
        if (
            ended
            or unit.temporal_status_on(day, newer_period_known=False) != TemporalStatus.CURRENT
        ):
            continue
        for band, _, top in band_rows(unit.text):
            tops.setdefault(band, set()).add(top)
    # Rows that disagree on a band's top leave it unknown rather than guessed.
    return {band: found.pop() for band, found in tops.items() if len(found) == 1}


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
