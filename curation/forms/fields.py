"""Form fields the curation screens share. Ids are ASCII digits only: `str.isdigit()` also
takes "²" (which `int()` refuses) and "١" (which it reads as 1), and a number past the
database's bigint would fail at the query. Text fields are Django's CharField, whose
validator already refuses a NUL byte (PostgreSQL stores none), so the screen names the field."""

from __future__ import annotations

from django import forms
from django.core.exceptions import ValidationError

MAX_ID = 2**63 - 1  # the primary keys are BigAutoField


def whole_number(value: str) -> int | None:
    """The whole number `value` spells in ASCII digits (surrounding blanks allowed), else None."""
    value = value.strip()
    if not (value.isascii() and value.isdigit()) or int(value) > MAX_ID:
        return None
    return int(value)


class IdListField(forms.Field):
    """A repeated field's ids (blank values skipped); any other value refuses them all, since
    acting on part of a ticked selection would surprise the person."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value) -> list[int]:
        values = [item for item in value or [] if item.strip()]
        ids = [whole_number(item) for item in values]
        if None in ids:
            raise ValidationError(self.error_messages["invalid"], code="invalid")
        return ids
