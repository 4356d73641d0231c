"""The one door to environment variables: typed, and loud about bad values.

Every variable the project reads goes through here and is listed in `.env.example`.
A value that is set but cannot be parsed raises `ImproperlyConfigured` naming the
variable and the value, instead of silently falling back to a default.
"""

from __future__ import annotations

import os
from urllib.parse import urlparse

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _raw(name: str) -> str | None:
    value = os.environ.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def _bad(name: str, value: str, expected: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"{name}={value!r} is not valid: expected {expected}")


def env_str(name: str, default: str | None = None, *, choices: tuple[str, ...] = ()) -> str | None:
    value = _raw(name)
    if value is None:
        return default
    if choices and value not in choices:
        raise _bad(name, value, "one of " + ", ".join(choices))
    return value


def env_bool(name: str, default: bool) -> bool:
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise _bad(name, value, "true/false (or 1/0, yes/no, on/off)")


def env_int(
    name: str, default: int, *, minimum: int | None = None, maximum: int | None = None
) -> int:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise _bad(name, value, "an integer") from None
    if minimum is not None and number < minimum:
        raise _bad(name, value, f"an integer >= {minimum}")
    if maximum is not None and number > maximum:
        raise _bad(name, value, f"an integer <= {maximum}")
    return number


def env_float(
    name: str, default: float, *, minimum: float | None = None, maximum: float | None = None
) -> float:
    value = _raw(name)
    if value is None:
        return default
    try:
        number = float(value)
    except ValueError:
        raise _bad(name, value, "a number") from None
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        low = "" if minimum is None else f" >= {minimum}"
        high = "" if maximum is None else f" <= {maximum}"
        raise _bad(name, value, "a number" + low + (" and" if low and high else "") + high)
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_url(name: str, *, schemes: tuple[str, ...]) -> str | None:
    value = _raw(name)
    if value is None:
        return None
    parsed = urlparse(value)
    if parsed.scheme not in schemes:
        raise _bad(name, value, "a URL with scheme " + " or ".join(schemes))
    return value


def env_json(name: str, default):
    value = _raw(name)
    if value is None:
        return default
    import json

    try:
        return json.loads(value)
    except ValueError as exc:
        raise _bad(name, value, f"JSON ({exc})") from None
