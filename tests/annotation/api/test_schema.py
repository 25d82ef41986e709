"""The OpenAPI schema covers the API: every URL under /api/ is an operation with each of its
methods, it is a valid OpenAPI 3.1 document with no warning, /api/schema/ serves it and
/api/docs/ renders with its assets served from this site."""

from __future__ import annotations

import re

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from annotation.api.autoschema import COMMON

# The schema and its docs page describe the API; they are not part of it.
NOT_OPERATIONS = {"api/schema/", "api/docs/"}
HTTP_METHODS = ("get", "post", "put", "patch", "delete")


def _walk(patterns, prefix: str = ""):
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            yield from _walk(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            yield route, entry.callback


def _as_schema_path(route: str) -> str:
    """``api/assignments/<int:pk>/submit/`` as the schema writes it (drf-spectacular names a
    ``pk`` ``id``)."""
    path = "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: "{%s}" % ("id" if m[1] == "pk" else m[1]), route)
    return path.replace("^", "").replace("$", "")


def api_routes() -> dict[str, set[str]]:
    """{schema path: the methods its view answers} for every URL under /api/."""
    found: dict[str, set[str]] = {}
    for route, callback in _walk(get_resolver().url_patterns):
        if not route.startswith("api/") or route in NOT_OPERATIONS:
            continue
        view = getattr(callback, "cls", None)
        assert view is not None, f"{route} is not a DRF view: the schema cannot describe it"
        methods = {m for m in HTTP_METHODS if hasattr(view, m)}
        found.setdefault(_as_schema_path(route), set()).update(methods)
    return found


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def test_the_urlconf_walk_finds_the_api():
    routes = api_routes()
    assert routes["/api/assignments/{id}/submit/"] == {"post"}
    assert routes["/api/projects/{slug}/media/"] == {"get", "post"}
    assert routes["/api/projects/{slug}/rules/{id}/"] == {"get", "patch", "delete"}
    # Task types mount their own API under /api/ too.
    assert "/api/projects/{slug}/key-points/evaluations/" in routes


def test_every_api_url_is_an_operation_with_each_of_its_methods(schema):
    described = {path: {m for m in ops if m in HTTP_METHODS} for path, ops in schema["paths"].items()}
    missing = {path: sorted(methods - described.get(path, set()))
               for path, methods in api_routes().items() if methods - described.get(path, set())}
    assert missing == {}
    # The schema describes itself too (a public operation); its docs page is no API.
    extra = set(described) - set(api_routes())
    assert extra == {"/api/schema/"}


def test_every_operation_is_named_tagged_and_documents_its_errors(schema):
    ids = []
    for path, ops in schema["paths"].items():
        for method, op in ops.items():
            ids.append(op["operationId"])
            assert op.get("tags"), (method, path)
            assert op.get("summary") or op.get("description"), (method, path)
            codes = set(op["responses"])
            assert {"429", "503"} <= codes, (method, path)
            assert any(code.startswith("2") for code in codes), (method, path)
            if "{" in path:
                assert "404" in codes, (method, path)
            if method in ("post", "put", "patch"):
                assert "413" in codes, (method, path)  # annotation.body_limits
            # An operation open to anonymous callers says so (`{}`); every other one takes a token
            # or a session and answers 403 without them.
            if {} not in op["security"]:
                assert "403" in codes and {"tokenAuth": []} in op["security"], (method, path)
            assert re.fullmatch(r"[a-z][a-z0-9_]+", op["operationId"]), op["operationId"]
    assert len(ids) == len(set(ids))


def test_security_schemes_and_the_public_token_endpoint(schema):
    schemes = schema["components"]["securitySchemes"]
    assert schemes["tokenAuth"] == {**schemes["tokenAuth"], "type": "apiKey", "in": "header", "name": "Authorization"}
    assert schemes["cookieAuth"]["in"] == "cookie"
    token = schema["paths"]["/api/token/"]["post"]
    assert token["security"] == [{}]
    assert "403" not in token["responses"]
    public = {op["operationId"] for ops in schema["paths"].values() for op in ops.values() if {} in op["security"]}
    # Prolific's webhook has no login: its signature is checked instead (403 without it).
    assert public == {"token_obtain", "schema_retrieve", "prolific_webhook"}


def test_submit_documents_the_one_round_trip(schema):
    submit = schema["paths"]["/api/assignments/{id}/submit/"]["post"]
    assert [p for p in submit["parameters"] if p["name"] == "next"][0]["in"] == "query"
    body = submit["responses"]["201"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
    properties = schema["components"]["schemas"][body]["properties"]
    assert {"id", "assignment", "answer", "counted", "next"} <= set(properties)
    nxt = schema["components"]["schemas"][properties["next"]["allOf"][0]["$ref"].rsplit("/", 1)[1]]
    assert {"assignment", "reason"} <= set(nxt["properties"])
    assert "consent" in schema["components"]["schemas"]["ReasonEnum"]["enum"]
    assert {"200", "201", "400", "404", "409"} <= set(submit["responses"])


def test_the_errors_every_operation_can_give_are_shared_components(schema):
    assert {"ErrorDetail", "FieldErrors", "WaitAndRetry"} <= set(schema["components"]["schemas"])
    assert set(COMMON) == {"400", "403", "404", "413", "415", "429", "503"}
    throttled = schema["paths"]["/api/projects/"]["get"]["responses"]["429"]
    assert "Retry-After" in throttled["headers"]


def test_the_schema_generates_without_a_warning_and_validates(tmp_path):
    # What `make lint` runs: drf-spectacular exits non-zero on any warning or an invalid document.
    call_command("spectacular", "--fail-on-warn", "--validate", "--file", str(tmp_path / "schema.yaml"))
    assert (tmp_path / "schema.yaml").read_text().startswith("openapi: 3.1.0")


@pytest.mark.django_db
def test_the_schema_is_served_as_openapi_3_1():
    response = APIClient().get("/api/schema/", {"format": "json"})
    assert response.status_code == 200
    document = response.json()
    assert document["openapi"] == "3.1.0"
    assert "/api/assignments/{id}/submit/" in document["paths"]
    assert APIClient().get("/api/schema/").content.startswith(b"openapi: 3.1.0")


@pytest.mark.django_db
def test_the_docs_page_renders_with_local_assets_and_no_inline_code():
    response = APIClient().get("/api/docs/")
    assert response.status_code == 200
    html = response.content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    local = [a for a in assets if a.startswith("/static/")]
    assert len(local) >= 4 and all(not a.startswith(("http:", "https:", "//")) for a in assets)
    for asset in local:
        assert finders.find(asset.removeprefix("/static/")), asset
    # The policy allows scripts and styles from this site only: none is inline.
    assert "<style" not in html and re.search(r"<script>", html) is None
    script = APIClient().get("/api/docs/", {"script": ""})
    assert script.status_code == 200 and b"SwaggerUIBundle" in script.content
    assert "img-src 'self' data:" in response["Content-Security-Policy"]
    assert "script-src 'self';" in response["Content-Security-Policy"] + ";"


@pytest.mark.django_db
def test_an_api_address_no_route_matches_answers_the_documented_json_404(client):
    for path in ("/api/assignments/-1/submit/", "/api/projects/a%20b/progress/", "/api/no-such-thing/"):
        response = client.post(path)
        assert response.status_code == 404
        assert response["Content-Type"] == "application/json" and response.json() == {"detail": "Not found."}
    page = client.get("/no/such/page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
