"""The Income Tax bands a statement is for, read from gov.uk English: "If you're a higher or
additional rate taxpayer", "If you pay basic rate Income Tax" (often a heading), "if you pay
Income Tax at the 40% rate", "you pay Income Tax at a rate above 20%".

A band table's row ("Tax band: Higher rate; Tax rate on dividends over the allowance: 33.75%")
is not read: it gives the rate of the slice of income in that band, which a higher rate
taxpayer pays on their income in the basic band too.

The bands are kept as names, not amounts: which band a person's income falls in is worked out
when they search, from the knowledge base's own band table for that day
(knowledge.band_table), so a new tax year's limits change no stored reading.

The amount a page tells the reader to work out and compare with a band ("Add this amount to
your taxable income. If this amount is within the basic Income Tax band, you'll pay 18%") is
their taxable income with the gain or the dividends added: "within the basic band" is read as
the reader's band. "For any amount above the basic Income Tax band, you'll pay 24%" is a slice
of that amount, which a basic rate taxpayer with a large gain pays too: it names no band, not
even its heading's. A band that is someone else's ("if your partner is a basic rate
taxpayer") is not read. A band named by one item of a list of alternatives ("You may be able
to claim tax relief if: you pay Income Tax at a rate above 20% …; your pension scheme is not
set up …") is one way in, as any other condition there (knowledge.text.applicability)."""

from __future__ import annotations

import re

TAX_BANDS = ("basic", "higher", "additional")
# The main UK rates of the three bands (England, Wales and Northern Ireland; Scotland has
# bands of its own): how gov.uk names a band by its rate, "if you pay Income Tax at the 40%
# rate". A rate, not a limit: the limits are data (see the module's docstring).
_BAND_OF_RATE = {"20": "basic", "40": "higher", "45": "additional"}

_BAND = r"(basic|higher|additional)"
_BANDS_NAMED = re.compile(
    rf"\b{_BAND}(?:,? (?:or|and) {_BAND})?[- ]rate (?:tax ?payers?|income tax(?:payers?)?\b)"
    rf"|\bpay (?:income )?tax at (?:the )?{_BAND} rate\b",
    re.IGNORECASE,
)
_BANDS_BY_RATE = re.compile(
    r"\bpay (?:income )?tax at (?:the )?(\d\d)% rate\b|\bpay (\d\d)% (?:income )?tax\b|\b(\d\d)% taxpayers?\b"
    r"|\bpay (?:income )?tax at (?:a rate|rates) (above|over|higher than) (\d\d)%",
    re.IGNORECASE,
)
# "you're in the higher rate band", "if your income is within the basic rate band", "if this
# amount is within the basic Income Tax band" (an amount above a band is a slice: _SLICE)
_READER_IN_BAND = re.compile(
    rf"\b(?:you(?:'re| are)|your (?:taxable )?income (?:is|falls)|(?:this|the|any) amount(?: is)?)"
    rf" (in|within) the {_BAND}(?: rate)?(?: income)?(?: tax)? band\b",
    re.IGNORECASE,
)
_SLICE = re.compile(
    r"\bamount above the (?:basic|higher)(?: rate)?(?: income)?(?: tax)? band\b", re.I
)
# Whose band it is: a band after these words in its clause is someone else's.
_SOMEONE_ELSE = re.compile(r"\b(?:partner|spouse|civil partner|they|their|them)\b", re.I)
_READER_TOO = re.compile(r"\b(?:you or your|you and your|either of you|both of you)\b", re.I)


def tax_bands_read(text: str, heading_path: list[str] | None = None) -> frozenset[str]:
    """The bands the statement is for, from its own words; when they name none, from its
    nearest heading that does ("If you pay higher rate Income Tax"). Several readings are
    alternatives: a statement for higher or additional rate taxpayers is for either."""
    own = _bands_in(text)
    if own:
        return own
    if _SLICE.search(text):
        return frozenset()  # a slice of the reader's amount: for whoever's amount reaches it
    for heading in reversed(heading_path or []):
        named = _bands_in(heading)
        if named == {"higher"}:
            # A heading names the group loosely: "If you pay higher rate Income Tax" heads
            # "If you're a higher or additional rate taxpayer, …" (Capital Gains Tax rates).
            return frozenset({"higher", "additional"})
        if named:
            return named
    return frozenset()


def _bands_in(text: str) -> frozenset[str]:
    bands: set[str] = set()
    for clause in re.split(r"(?<=[.;])\s+|\n", text):
        for match in _BANDS_NAMED.finditer(clause):
            if _the_readers(clause, match.start()):
                bands |= {band.lower() for band in match.groups() if band}
        for match in _BANDS_BY_RATE.finditer(clause):
            if not _the_readers(clause, match.start()):
                continue
            rate = match.group(1) or match.group(2) or match.group(3)
            if rate in _BAND_OF_RATE:
                bands.add(_BAND_OF_RATE[rate])
            elif match.group(5) in _BAND_OF_RATE:  # "at a rate above 20%": every band above
                bands |= set(TAX_BANDS[TAX_BANDS.index(_BAND_OF_RATE[match.group(5)]) + 1 :])
        for match in _READER_IN_BAND.finditer(clause):
            bands.add(match.group(2).lower())
    return frozenset(bands)


def _the_readers(clause: str, position: int) -> bool:
    """The band at `position` is the reader's: no one else is named before it in its clause,
    unless together with the reader ("if you or your partner are higher rate taxpayers")."""
    before = clause[:position]
    return not _SOMEONE_ELSE.search(before) or bool(_READER_TOO.search(before))
