"""Reading the threshold gold (`gold_thresholds_dev.json`, see ../shared/eval/README.md).

The pydantic models declare the fields the scoring reads; the rest of a fact (label, references,
notes, corpus contexts) is ignored. A malformed file raises GoldFormatError naming the fact and
the field, e.g. "fact 3 (ni.primary_threshold): values[0].valid_from: missing".
"""

from __future__ import annotations

import datetime as dt
import json
from decimal import Decimal
from pathlib import Path

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    field_validator,
    model_validator,
)

from evaluation.thresholds.amounts import printed_form
from knowledge.validation import first_error

RATE_YEAR_PREFIX = "minimum_wage."  # minimum wage rates run 1 April to 31 March


class GoldFormatError(ValueError):
    """The gold file does not have the shape the README describes; names the field."""


class _GoldModel(BaseModel):
    # Strict: a string where the README says number, or "true" for true, is a mistake in the
    # file to report, not a value to guess at.
    model_config = ConfigDict(strict=True, frozen=True)


class GoldValue(_GoldModel):
    value: Decimal | None  # None for an abolished fact
    valid_from: dt.date
    valid_to: dt.date | None = None
    date_basis: str | None = None


class GoldMatch(_GoldModel):
    """One place the corpus prints a dated value."""

    value: Decimal
    valid_from: dt.date
    printed: str
    printed_as: str
    period_consistent: bool | None

    @model_validator(mode="after")
    def _printed_form_is_readable(self) -> GoldMatch:
        printed_form(self.printed, self.printed_as)  # fail on an unknown form now, not mid-run
        return self


class GoldFact(_GoldModel):
    # Field order is the order problems are reported in (the first one is named).
    fact_id: str
    unit: str
    values: tuple[GoldValue, ...]
    matches: tuple[GoldMatch, ...] = Field(alias="corpus_matches")
    category: str

    @field_validator("unit")
    @classmethod
    def _unit_is_rate_or_money(cls, unit: str) -> str:
        if unit != "rate" and not unit.startswith("GBP"):
            raise ValueError(f"expected 'rate' or 'GBP…', got {unit!r}")
        return unit

    @model_validator(mode="after")
    def _matches_name_dated_values(self) -> GoldFact:
        dated = {(value.value, value.valid_from) for value in self.values}
        for index, match in enumerate(self.matches):
            if (match.value, match.valid_from) not in dated:
                raise ValueError(f"corpus_matches[{index}]: value/valid_from name no dated value")
        return self

    @property
    def is_rate(self) -> bool:
        return self.unit == "rate"

    @property
    def uses_rate_year(self) -> bool:
        return self.fact_id.startswith(RATE_YEAR_PREFIX)


_GOLD_FILE = TypeAdapter(list[GoldFact])


def gold_load(*, path: Path) -> list[GoldFact]:
    """Parse the gold file; raise GoldFormatError naming the first bad field."""
    text = path.read_bytes()
    try:
        return _GOLD_FILE.validate_json(text)
    except ValidationError as error:
        raise GoldFormatError(_gold_problem(error, text=text, path=path)) from None


def _gold_problem(error: ValidationError, *, text: bytes, path: Path) -> str:
    first = error.errors()[0]
    if first["type"] == "json_invalid":
        return f"{path}: {first_error(error)}"
    if not first["loc"]:
        return f"{path}: expected a JSON list of facts"
    return f"{_fact_name(text, first['loc'][0])}: {first_error(error, skip=1)}"


def _fact_name(text: bytes, index: int) -> str:
    """'fact 3 (ni.primary_threshold)', or 'fact 3' when its fact_id is unreadable too."""
    fact = json.loads(text)[index]
    fact_id = fact.get("fact_id") if isinstance(fact, dict) else None
    return f"fact {index} ({fact_id})" if isinstance(fact_id, str) else f"fact {index}"
