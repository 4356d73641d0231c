"""Who the user is: what an assistant knows of them (`Profile`, the request model: each
field's bound and meaning once, only the fields it knows) and the person it describes on a day
(`Person`), in the codes a statement's applicability (knowledge.text.applicability) uses too.
Whether a statement is for them is knowledge.domain.fit; the Income Tax bands their income
falls in are read from the knowledge base's band table (knowledge.band_table)."""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

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
    # band table (knowledge.band_table): one band, or two when the table gives only where the
    # lower ends. Worked out, not a field the person gave.
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


MAX_INCOME = 100_000_000


class Profile(BaseModel):
    """What an assistant knows about its user, only the fields it knows. Never stored: the
    query log keeps which fields were sent, not their values."""

    model_config = ConfigDict(extra="forbid")

    age: int | None = Field(None, ge=0, le=120, description="Age in years on the day asked about")
    nation: Nation | None = Field(None, description="The UK nation the user lives in")
    annual_income: float | None = Field(
        None, ge=0, le=MAX_INCOME, description="Income in £ a year before tax"
    )
    employment: Employment | None = Field(None, description="Their work")
    partner: bool | None = Field(None, description="Lives with a partner")
    children_ages: list[int] | None = Field(
        None, max_length=20, description="The ages of the children they are responsible for"
    )
    benefits: list[str] | None = Field(
        None,
        max_length=20,
        description="Benefits they get, as snake_case codes: universal_credit, child_benefit, "
        "pension_credit, income_related_esa, income_based_jsa, income_support, housing_benefit, "
        "pip, dla, carers_allowance, attendance_allowance, ...",
    )
    student_loan_plan: StudentLoanPlan | None = Field(None, description="Their student loan plan")

    @field_validator("children_ages")
    @classmethod
    def _children_ages(cls, ages: list[int] | None) -> list[int] | None:
        for age in ages or []:
            if not 0 <= age <= 25:
                raise ValueError(f"{age} is not a child's age (0 to 25)")
        return ages

    @field_validator("benefits")
    @classmethod
    def _benefit_codes(cls, codes: list[str] | None) -> list[str] | None:
        for code in codes or []:
            if not _BENEFIT_CODE.fullmatch(code):
                raise ValueError(
                    f"{code!r} is not a benefit code (snake_case, e.g. universal_credit)"
                )
        return codes

    def fields_present(self) -> list[str]:
        return sorted(self.model_dump(exclude_none=True))

    def person(self, *, on: dt.date | None = None) -> Person:
        """The person, their age taken as on `on` (today when not given)."""
        return Person(
            age_on=on,
            age=self.age,
            nation=self.nation,
            annual_income=None if self.annual_income is None else Decimal(str(self.annual_income)),
            employment=self.employment,
            partner=self.partner,
            children_ages=None if self.children_ages is None else tuple(self.children_ages),
            benefits=None if self.benefits is None else frozenset(self.benefits),
            student_loan_plan=self.student_loan_plan,
        )


_BENEFIT_CODE = re.compile(r"[a-z][a-z0-9_]{1,39}")
