"""Who the user is, as an assistant describes them (`Person`): the fields a profile and a
statement's applicability (knowledge.text.applicability) share, in the same codes. Whether a
statement is for them is knowledge.domain.fit."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from knowledge.text.applicability import EMPLOYMENTS, STUDENT_LOAN_PLANS
from knowledge.text.nations import NATIONS
from knowledge.text.tax_bands import TAX_BANDS

# The codes a profile and a unit's applicability share, written once (knowledge.text).
Nation = Literal[NATIONS]
Employment = Literal[EMPLOYMENTS]
StudentLoanPlan = Literal[STUDENT_LOAN_PLANS]
TaxBand = Literal[TAX_BANDS]


@dataclass(frozen=True)
class Person:
    age: int | None = None
    nation: str | None = None
    annual_income: Decimal | None = None
    employment: str | None = None
    partner: bool | None = None
    children_ages: tuple[int, ...] | None = None
    benefits: frozenset[str] | None = None
    student_loan_plan: str | None = None
    # The day `age` is on (the search's), which dates of birth are compared on; not a field
    # the person gave.
    age_on: dt.date | None = field(default=None, compare=False)
    # The Income Tax bands `annual_income` may fall in on that day, from the knowledge base's
    # band table (knowledge.retrieval.tax_bands): one band, or two when the table gives only
    # where the lower ends. Worked out, not a field the person gave.
    tax_bands: frozenset[str] | None = field(default=None, compare=False)

    def fields_present(self) -> list[str]:
        worked_out = ("age_on", "tax_bands")
        return [
            name
            for name, value in self.__dict__.items()
            if value is not None and name not in worked_out
        ]

    def is_empty(self) -> bool:
        return not self.fields_present()
