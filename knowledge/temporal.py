"""Temporal status of a unit on a given day, following the UK tax year.

A tax year runs from 6 April to 5 April. Validity dates are inclusive on both ends, so a
unit valid for the 2024 to 2025 tax year (2024-04-06 .. 2025-04-05) is current on
5 April 2025 and historical from 6 April 2025. A unit stops being current on the day it is
superseded (the newer rule applies from that day).

The same rules exist as SQL in `AtomicUnitQuerySet.with_temporal_status`; a test keeps the
two in agreement.
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum


class TemporalStatus(StrEnum):
    CURRENT = "current"
    HISTORICAL = "historical"
    UPCOMING = "upcoming"


TAX_YEAR_START_MONTH = 4
TAX_YEAR_START_DAY = 6


def tax_year_start_year(day: dt.date) -> int:
    """The calendar year in which the tax year containing `day` began."""
    if (day.month, day.day) >= (TAX_YEAR_START_MONTH, TAX_YEAR_START_DAY):
        return day.year
    return day.year - 1


def tax_year_bounds(start_year: int) -> tuple[dt.date, dt.date]:
    """First and last day of the tax year that starts in `start_year` (e.g. 2024 -> 2024-25)."""
    first = dt.date(start_year, TAX_YEAR_START_MONTH, TAX_YEAR_START_DAY)
    last = dt.date(start_year + 1, TAX_YEAR_START_MONTH, TAX_YEAR_START_DAY - 1)
    return first, last


def tax_year_label(start_year: int) -> str:
    return f"{start_year}-{(start_year + 1) % 100:02d}"


def temporal_status(
    *,
    valid_from: dt.date | None,
    valid_to: dt.date | None,
    superseded_date: dt.date | None,
    is_superseded: bool,
    as_of: dt.date,
) -> TemporalStatus:
    """Status of a unit on `as_of`; open-ended dates (None) never end or never start."""
    if is_superseded and (superseded_date is None or as_of >= superseded_date):
        return TemporalStatus.HISTORICAL
    if valid_from is not None and as_of < valid_from:
        return TemporalStatus.UPCOMING
    if valid_to is not None and as_of > valid_to:
        return TemporalStatus.HISTORICAL
    return TemporalStatus.CURRENT
