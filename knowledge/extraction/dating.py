"""When a unit holds, and why: the dating policy every provider's proposals follow where
they become units.

A provider says the period a unit's own sentence or table row states (basis STATED) or a
heading, caption or lead-in above it states (HEADING). Everything else is decided here,
from the concept and the capture: a money figure of a concept whose figures are set each
year (`Concept.yearly_figures`) printed with no year holds for the tax year (academic year,
on a page that counts in them) its page was captured in (CAPTURE); any other undated unit
stays open (OPEN). gov.uk's `public_updated_at` never dates a unit: GOV.UK leaves it old over
new text.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from decimal import Decimal

from knowledge.domain.extraction import ValidityBasis
from knowledge.models import Concept, PageSnapshot
from knowledge.text.amounts import amount_text
from knowledge.text.dates import counts_academic_years, hint_years, year_of_day

# Uprating changes money amounts; a percentage, an age or a number of weeks is set by policy
# until changed, even under a concept whose amounts are set each year.
YEARLY_UNITS = frozenset({"GBP"})

# What earlier versions of the providers wrote, read as the four bases. Periods they took from
# the page's last update are dropped: that date never dates a figure.
_OLD_BASES = {
    "table header or row": ValidityBasis.STATED,
    "stated in the quote": ValidityBasis.STATED,
    "stated by the model": ValidityBasis.STATED,
    "stated in its section": ValidityBasis.HEADING,
    "stated on the page": ValidityBasis.HEADING,
    "page file's period": ValidityBasis.CAPTURE,
    "tax year of the page's last update": ValidityBasis.OPEN,
    "academic year of the page's last update": ValidityBasis.OPEN,
    "period not stated on the page": ValidityBasis.OPEN,
}


def basis_named(text: str, *, dated: bool) -> ValidityBasis:
    """The ValidityBasis a stored or proposed basis string means. Any other (empty, or an
    item kept by an older version) is STATED when the proposal carries dates: a provider that
    gave dates read them from the page; OPEN otherwise."""
    if text in ValidityBasis._value2member_map_:
        return ValidityBasis(text)
    if text in _OLD_BASES:
        return _OLD_BASES[text]
    return ValidityBasis.STATED if dated else ValidityBasis.OPEN


@dataclass(frozen=True)
class Dating:
    valid_from: dt.date | None
    valid_to: dt.date | None
    basis: ValidityBasis


def capture_day(snapshot: PageSnapshot) -> dt.date:
    """The day gov.uk showed this version: the page file's or operator's capture date, else
    the day it was fetched."""
    return snapshot.captured_on or snapshot.fetched_at.date()


def capture_year(*, text: str, period_hint: str, captured_on: dt.date) -> tuple[dt.date, dt.date]:
    """The year a capture's undated yearly figures belong to: the page file's figures period
    when it names a year (the collector read it from the figures) and the capture is not
    later than a year it names as the earliest ('2021-22-or-later'), else the tax year
    (academic year, for a page that counts in them) of the capture day."""
    academic = counts_academic_years(text)
    captured = year_of_day(captured_on, academic=academic)
    hinted = hint_years(period_hint, academic=academic)
    if hinted is None:
        return captured
    # '2021-22-or-later' bounds the figures' year from below; the capture bounds it from
    # above and is the nearer: a figure still printed when captured held in that year.
    if period_hint.endswith("-or-later") and captured[0] > hinted[0]:
        return captured
    return hinted


def snapshot_capture_year(snapshot: PageSnapshot) -> tuple[dt.date, dt.date]:
    return capture_year(
        text=snapshot.text, period_hint=snapshot.period_hint, captured_on=capture_day(snapshot)
    )


def states_money(value_amount: Decimal | None, value_unit: str, figures: list[dict] = ()) -> bool:
    if value_amount is not None and value_unit in YEARLY_UNITS:
        return True
    return any(figure.get("unit") in YEARLY_UNITS for figure in figures or ())


def is_yearly_figure(
    concept: Concept,
    value_amount: Decimal | None,
    value_unit: str,
    figures: list[dict] = (),
    text: str = "",
) -> bool:
    """A money figure of a concept set each year, as its value or as one of its statement's
    other figures (a tax band's limits beside its rate); not a fine or penalty the text names
    as such, whatever concept it sits under: those are set until changed (a fee is not told
    apart: a tuition fee's cap is set each academic year)."""
    if not (concept.yearly_figures and states_money(value_amount, value_unit, figures)):
        return False
    return not (value_amount is not None and names_a_charge(text, value_amount))


def names_a_charge(text: str, amount: Decimal) -> bool:
    """The text names the amount a fine or a penalty ("a £50 fine", "a penalty of up to
    £300")."""
    printed = re.escape(amount_text(amount, "GBP"))
    return bool(
        re.search(
            rf"{printed} (?:civil )?(?:fine|penalty)\b|"
            rf"\b(?:fine|penalty) of (?:up to |at least )?{printed}(?![\d,])",
            text,
            re.I,
        )
    )


def unit_dating(
    *,
    stated: tuple[dt.date | None, dt.date | None],
    basis: str,
    yearly_figure: bool,
    snapshot: PageSnapshot,
    money_figure: bool = False,
) -> Dating:
    """A unit's validity and its basis. `stated`: the period the provider read and `basis` its
    reason; `yearly_figure`: a money figure of a concept set each year; `money_figure`: a
    money figure of any concept."""
    valid_from, valid_to = stated
    named = basis_named(basis, dated=bool(valid_from or valid_to))
    if (valid_from or valid_to) and named in (ValidityBasis.STATED, ValidityBasis.HEADING):
        if yearly_figure and valid_to is None and valid_from is not None:
            # "from 6 April 2024" on a figure set each year: it holds until next year's figure,
            # so to the end of the year it starts in, or of a later capture still printing it.
            captured_to = snapshot_capture_year(snapshot)[1]
            valid_to = max(year_of_day(valid_from)[1], captured_to)
        return Dating(valid_from, valid_to, named)
    if yearly_figure:
        return Dating(*snapshot_capture_year(snapshot), ValidityBasis.CAPTURE)
    if money_figure:
        # A standing limit stays open-ended; but where its page file says which year its
        # figures were seen in, it is not known to have held before that year (a £3,000
        # allowance seen in 2024-25 says nothing of 2022-23).
        academic = counts_academic_years(snapshot.text)
        seen = hint_years(snapshot.period_hint, academic=academic)
        if seen is not None:
            return Dating(seen[0], None, ValidityBasis.OPEN)
    return Dating(None, None, ValidityBasis.OPEN)


def unit_confirmed_on(
    *, snapshot: PageSnapshot, confirmed_at: dt.datetime | None
) -> dt.date | None:
    """The day gov.uk last confirmed a unit: the capture day of the newest version still
    printing it (units move onto it), or a later fetch that found it there."""
    captured = capture_day(snapshot) if snapshot.fetched_at else None
    if snapshot.captured_on is None and confirmed_at is not None:
        # a live fetch: each newer fetch that still prints it confirms it that day
        return max(filter(None, (captured, confirmed_at.date())))
    return captured
