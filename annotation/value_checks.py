"""One rule for values that reach the database from outside, the same on PostgreSQL and SQLite.

Without it, a record imports on SQLite and fails with a 500 on PostgreSQL (or the reverse):
- text with a NUL character: PostgreSQL refuses ``\\x00`` in text and ``\\u0000`` in jsonb;
- text with an unpaired surrogate (JSON's ``"\\ud800"``): not UTF-8, both refuse it;
- integers outside 64 bits: SQLite turns them into floats (inexact, or ``inf``), PostgreSQL
  keeps them exactly, and Python cannot even print one past 4,300 digits;
- non-finite numbers (``NaN``, ``1e400`` read as infinity): not JSON, both refuse them;
- JSON nested deeper than ``MAX_DEPTH``: no annotation task needs it, and the parsers of
  Python and PostgreSQL give up at different depths.
Pure: no Django here, so importers and services share it. ``json_document`` reads a JSON body
by this rule: the API's parser (``annotation.api.parsers.SafeJSONParser``) and the services that
must read raw bytes themselves (a signed webhook delivery) call it, so they refuse alike.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

MAX_DEPTH = 32
INT_MIN, INT_MAX = -(2**63), 2**63 - 1


def text_problem(text: str) -> str | None:
    if "\x00" in text:
        return "contains a NUL character (\\x00), which cannot be stored"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return "contains an unpaired surrogate (such as \\ud800), which is not valid Unicode"
    return None


def value_problem(value: Any, *, max_depth: int = MAX_DEPTH) -> tuple[str, str] | None:
    """(path, message) for the first part of a JSON-like value that breaks the rule, or None.
    The path joins keys with dots and list positions in brackets, e.g. ``arg1.text``."""
    stack: list[tuple[str, Any, int]] = [("", value, 0)]
    while stack:
        path, current, depth = stack.pop()
        if isinstance(current, str):
            problem = text_problem(current)
            if problem:
                return _short(path), problem
        elif isinstance(current, bool) or current is None:
            continue
        elif isinstance(current, int):
            if not INT_MIN <= current <= INT_MAX:
                return _short(path), "is a whole number beyond 64 bits (-2^63 to 2^63-1), which databases store differently"
        elif isinstance(current, float):
            if not math.isfinite(current):
                return _short(path), "is not a finite number"
        elif isinstance(current, Mapping | list | tuple):
            if depth >= max_depth:
                return _short(path), f"is nested more than {max_depth} levels deep"
            if isinstance(current, Mapping):
                children = []
                for key, child in current.items():
                    key_text = str(key)
                    problem = text_problem(key_text)
                    if problem:
                        return _short(_join(path, repr(key_text))), f"the key {problem}"
                    children.append((_join(path, key_text), child, depth + 1))
            else:
                children = [(f"{path}[{i}]", child, depth + 1) for i, child in enumerate(current)]
            stack.extend(reversed(children))
        else:
            return _short(path), f"holds a {type(current).__name__}, which is not a JSON value"
    return None


def field_problems(fields: Mapping[str, Any]) -> dict[str, str]:
    """{field: message} for the fields of an answer or a request body that break the rule, each
    reported under its top-level name (what a form or API client calls it)."""
    problems = {}
    for name, value in fields.items():
        problem = value_problem(value)
        if problem:
            path, message = problem
            problems[str(name)] = message if path == "" else f"{path}: {message}"
    return problems


class DocumentRefused(ValueError):
    """A JSON body that is refused. ``problems`` ({field: message}) is set when the document was
    read but breaks the rule; it is empty when the body could not be read at all."""

    def __init__(self, message: str, problems: Mapping[str, str] | None = None) -> None:
        super().__init__(message)
        self.problems = dict(problems or {})


def _strict_constant(name: str) -> Any:
    raise ValueError(f"Out of range float values are not JSON compliant: {name!r}")


def json_document(body: bytes, *, limit: int | None, encoding: str = "utf-8") -> Any:
    """The JSON document in ``body``, or DocumentRefused: a body over ``limit`` bytes, one that is
    not JSON in ``encoding`` (``NaN`` and ``Infinity`` included), one nested too deeply for
    Python's parser (a RecursionError, caught here), and one that breaks the rule above."""
    if limit is not None and len(body) > limit:
        raise DocumentRefused(f"The JSON body is larger than the limit of {limit} bytes.")
    try:
        data = json.loads(body.decode(encoding), parse_constant=_strict_constant)
    except RecursionError:
        raise DocumentRefused("JSON parse error - the document is nested too deeply.") from None
    except (ValueError, LookupError) as exc:
        raise DocumentRefused(f"JSON parse error - {exc}") from None
    if isinstance(data, Mapping):
        problems = field_problems(data)
    else:
        problem = value_problem(data)
        problems = {problem[0] or "body": problem[1]} if problem else {}
    if problems:
        raise DocumentRefused("The JSON body holds values that cannot be stored: "
                              + "; ".join(f"{k}: {v}" for k, v in problems.items()), problems)
    return data


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _short(path: str, limit: int = 60) -> str:
    return path if len(path) <= limit else path[:limit] + "…"


def scrubbed(value: Any, *, max_depth: int = MAX_DEPTH) -> Any:
    """A copy of metadata the platform records itself (client details, file names) that obeys
    the rule: NUL characters and unpaired surrogates removed, out-of-range numbers and deeper
    nesting written as text. Never used on answers or imported records, which are refused."""
    if isinstance(value, str):
        return value.replace("\x00", "").encode("utf-8", "ignore").decode("utf-8")
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value if INT_MIN <= value <= INT_MAX else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if max_depth <= 0:
        return scrubbed(repr(value)[:200])
    if isinstance(value, Mapping):
        return {scrubbed(str(k)): scrubbed(v, max_depth=max_depth - 1) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrubbed(v, max_depth=max_depth - 1) for v in value]
    return scrubbed(str(value))
