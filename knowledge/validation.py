"""One wording for pydantic validation errors, wherever a file or an answer is checked."""

from pydantic import ValidationError


def first_error(exc: ValidationError) -> str:
    """'categories.3.concepts.0.id: String should match pattern …' for the first problem."""
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "(top level)"
    return f"{where}: {first['msg']}"
