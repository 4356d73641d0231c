"""One wording for pydantic validation errors, wherever a file or an answer is checked: where
the problem is, then what it is ('details.parts[2].body: missing')."""

from __future__ import annotations

import reprlib

from pydantic import ValidationError
from pydantic_core import ErrorDetails

# Plainer words than pydantic's for what hand-written files most often get wrong.
_PHRASES = {
    "missing": "missing",
    "string_type": "must be a string",
    "string_too_short": "must not be empty",
    "list_type": "must be a list",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "dict_type": "must be an object",
}
_OWN_WORDS = {"value_error", "assertion_error"}  # our validators' messages, said as they are


def first_error(exc: ValidationError, *, skip: int = 0) -> str:
    """The first problem: "categories[3].concepts[0].id: String should match pattern '…',
    got 'ISA Allowance'", or 'not valid JSON (…)'. `skip` leaves out the first parts of its
    place, for a caller that names them its own way (the fact an index of a list stands for)."""
    error = exc.errors()[0]
    if error["type"] == "json_invalid":
        return f"not valid JSON ({error['ctx']['error']})"
    return f"{error_place(error['loc'][skip:])}: {_what(error)}"


def error_place(loc: tuple) -> str:
    """('details', 'parts', 2, 'body') -> 'details.parts[2].body'."""
    place = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
    return place.lstrip(".") or "(top level)"


def _what(error: ErrorDetails) -> str:
    if error["type"] in _OWN_WORDS:
        return str(error["ctx"]["error"])
    what = _PHRASES.get(error["type"], error["msg"])
    return what if error["type"] == "missing" else f"{what}, got {reprlib.repr(error['input'])}"
