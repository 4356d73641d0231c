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
from decimal import Decimal

from django.db.models import Q

from knowledge.domain.profile import Person
from knowledge.models import AtomicUnit
from knowledge.retrieval.params import Profile
from knowledge.text.tax_bands import TAX_BANDS

# A band's row: its name, its range of taxable income and its rate.
_BAND_ROW = re.compile(
    r"\b(basic|higher) rate\b[^£%.;]{0,40}?£(\d[\d,]*) to £(\d[\d,]*)[^£.;]{0,20}?\d+(?:\.\d+)?%",
    re.IGNORECASE,
)


def band_upper_limits(nation: str | None, day: dt.date) -> dict[str, Decimal]:
    """The top of each band whose row is in force on `day` for `nation` (England when not
    given: gov.uk writes for England unless it says otherwise)."""
    nation = nation or "england"
    rows = (
        AtomicUnit.objects.alive()
        .in_force(day)
        .filter(unit_type=AtomicUnit.Type.THRESHOLD, concept__taxonomy_id__startswith="income_tax.")
        .filter(Q(applicability__nations__contains=[nation]) | ~Q(applicability__has_key="nations"))
        .filter(text__iregex=r"(basic|higher) rate.*£.* to £")
        .values_list("text", flat=True)
    )
    limits: dict[str, Decimal] = {}
    for text in rows:
        for match in _BAND_ROW.finditer(text):
            band, top = match.group(1).lower(), Decimal(match.group(3).replace(",", ""))
            # Two rows for one band on one day disagree only across nations' tables, which
            # the filter above keeps apart; the lower reading is the safer one.
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
