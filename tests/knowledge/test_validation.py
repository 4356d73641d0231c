"""One wording for pydantic validation errors: where the problem is, then what it is."""

import pytest
from pydantic import BaseModel, ValidationError, field_validator

from knowledge.validation import error_place, first_error


class Part(BaseModel):
    body: str


class Page(BaseModel):
    title: str
    parts: list[Part]

    @field_validator("title")
    @classmethod
    def _real_title(cls, title: str) -> str:
        if title == "x":
            raise ValueError("must be a real title")
        return title


def problem(data, **kwargs) -> str:
    with pytest.raises(ValidationError) as failed:
        Page.model_validate(data)
    return first_error(failed.value, **kwargs)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        ({"title": "T", "parts": [{}]}, "parts[0].body: missing"),
        ({"title": "T", "parts": [{"body": 3}]}, "parts[0].body: must be a string, got 3"),
        ({"title": "T", "parts": "one"}, "parts: must be a list, got 'one'"),
        ({"title": "T", "parts": ["<p>x</p>"]}, "parts[0]: must be an object, got '<p>x</p>'"),
        ({"title": "x", "parts": []}, "title: must be a real title"),  # our validator's words
    ],
)
def test_the_first_problem_names_the_field_then_what_is_wrong(data, said):
    assert problem(data) == said


def test_a_caller_may_name_the_first_places_itself():
    assert problem({"title": "T", "parts": [{}]}, skip=2) == "body: missing"


def test_text_that_is_not_json_is_said_so():
    with pytest.raises(ValidationError) as failed:
        Page.model_validate_json("{not json")
    assert first_error(failed.value).startswith("not valid JSON (")


def test_a_problem_with_the_whole_value_has_a_place_too():
    assert error_place(()) == "(top level)"
    assert error_place(("details", "parts", 2, "body")) == "details.parts[2].body"
