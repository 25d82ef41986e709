"""Settings read from the environment, each checked for its shape when the settings load.

A value of the wrong shape stops every process at start (web server, job worker, ``manage.py``)
with ``ImproperlyConfigured`` naming the variable, the value and the shape it must have, instead
of failing later inside a request: ``THROTTLE_TOKEN=200`` (a bare number, no period) used to turn
every token request into a 500. An empty variable counts as unset. Every variable the code reads
is listed in the manual (docs/operations.md#settings), which a test keeps in step with the code.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

TRUE = {"1", "true", "yes", "on"}
FALSE = {"0", "false", "no", "off"}
# A request rate as Django REST framework reads it: a count, a slash, a period (its first letter
# is what counts: s, m, h or d); anything else makes DRF fail on the first throttled request.
RATE = re.compile(r"^\d+/(s|sec|second|m|min|minute|h|hour|d|day)$")


class EnvironmentValueError(ImproperlyConfigured):
    """A variable of the environment holds a value of the wrong shape."""

    def __init__(self, name: str, value: str, shape: str) -> None:
        super().__init__(f"{name}={value!r} is not {shape}; fix or unset {name} (docs/operations.md#settings)")
        self.name = name


def raw(name: str) -> str | None:
    """The variable's value, stripped; None when it is unset or empty."""
    value = os.environ.get(name, "").strip()
    return value or None


def env_str(name: str, default: str) -> str:
    value = raw(name)
    return default if value is None else value


def env_bool(name: str, default: bool) -> bool:
    value = raw(name)
    if value is None:
        return default
    if value.lower() in TRUE:
        return True
    if value.lower() in FALSE:
        return False
    raise EnvironmentValueError(name, value, "a yes or no: 1, true, yes, on or 0, false, no, off")


def env_int(name: str, default: int, *, minimum: int = 0, maximum: int | None = None) -> int:
    value = raw(name)
    if value is None:
        return default
    shape = f"a whole number from {minimum}" + (f" to {maximum}" if maximum is not None else " up")
    try:
        number = int(value)
    except ValueError:
        raise EnvironmentValueError(name, value, shape) from None
    if number < minimum or (maximum is not None and number > maximum):
        raise EnvironmentValueError(name, value, shape)
    return number


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    value = raw(name)
    if value is None:
        return default
    shape = f"a number of at least {minimum:g}"
    try:
        number = float(value)
    except ValueError:
        raise EnvironmentValueError(name, value, shape) from None
    if not number >= minimum or number == float("inf"):  # NaN fails the first test
        raise EnvironmentValueError(name, value, shape)
    return number


def env_rate(name: str, default: str) -> str:
    """A throttle rate: requests per period, e.g. ``10/min``, ``600/minute``, ``3/hour``."""
    value = raw(name)
    if value is None:
        return default
    if not RATE.match(value):
        raise EnvironmentValueError(
            name, value, "a rate: requests/period, the period one of s, sec, second, m, min, minute, "
                         "h, hour, d, day (e.g. 10/min)")
    return value


def env_choice(name: str, default: str, choices: Iterable[str]) -> str:
    value = raw(name)
    if value is None:
        return default
    known = list(choices)
    if value not in known:
        raise EnvironmentValueError(name, value, f"one of {', '.join(known)}")
    return value


def env_url(name: str, default: str, *, schemes: Iterable[str]) -> str:
    """A URL whose scheme is one of ``schemes`` and that names a host (``unix`` and ``sqlite``
    URLs name a path instead)."""
    value = raw(name)
    if value is None:
        return default
    allowed = list(schemes)
    shape = f"a URL starting {' or '.join(f'{s}://' for s in allowed)}"
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018  (a port that is no number raises here)
    except ValueError:
        raise EnvironmentValueError(name, value, shape) from None
    if parts.scheme not in allowed or not (parts.hostname or parts.scheme in ("unix", "sqlite")):
        raise EnvironmentValueError(name, value, shape)
    return value


def env_list(name: str, default: str, *, separator: str | None = ",") -> list[str]:
    """Items separated by ``separator`` (commas, or None for white space), blanks dropped."""
    return [item.strip() for item in env_str(name, default).split(separator) if item.strip()]


def env_origins(name: str, default: str = "", *, separator: str | None = ",") -> list[str]:
    """Origins such as ``https://example.org`` (a scheme and a host, no path)."""
    origins = env_list(name, default, separator=separator)
    for origin in origins:
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/"):
            raise EnvironmentValueError(name, origin, "a list of origins such as https://example.org")
    return origins
