"""Checks a real API response against the OpenAPI schema: its status is documented for the
operation, its content type is one the schema names, and its JSON body is valid against the
schema (JSON Schema 2020-12, as OpenAPI 3.1 uses)."""

from __future__ import annotations

import json
import re
from functools import lru_cache

from drf_spectacular.generators import SchemaGenerator
from jsonschema import Draft202012Validator


@lru_cache(maxsize=1)
def api_schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _operation(method: str, path: str) -> tuple[str, dict]:
    """The operation whose path template matches the concrete ``path``."""
    for template, ops in api_schema()["paths"].items():
        pattern = "^" + re.sub(r"\\{\w+\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path) and method.lower() in ops:
            return template, ops[method.lower()]
    raise AssertionError(f"{method} {path} is no operation of the schema")


def assert_conforms(response, method: str, path: str) -> None:
    """Fails naming the operation, status and what does not match."""
    path = path.split("?", 1)[0]
    template, operation = _operation(method, path)
    where = f"{method} {template} -> {response.status_code}"
    documented = operation["responses"].get(str(response.status_code))
    assert documented is not None, f"{where}: status not documented ({sorted(operation['responses'])})"
    content = documented.get("content")
    if not content:
        return
    media_type = response.get("Content-Type", "").split(";")[0].strip()
    matching = [m for m in content if m == media_type or (m.endswith("/*") and media_type.startswith(m[:-1]))]
    assert matching, f"{where}: content type {media_type!r} not among {sorted(content)}"
    schema = content[matching[0]].get("schema")
    if schema is None or media_type != "application/json":
        return
    raw = b"".join(response.streaming_content) if response.streaming else response.content
    body = json.loads(raw)
    validator = Draft202012Validator({**schema, "components": api_schema()["components"]})
    problems = [f"{'/'.join(map(str, e.absolute_path)) or '(body)'}: {e.message}"
                for e in validator.iter_errors(body)]
    assert problems == [], f"{where}: {problems[:5]}"
