"""The Content-Security-Policy header: on every kind of response (pages, the API, errors,
redirects, the admin, files), strict (no inline script or style, no eval), and relaxed only for
a figure opened on its own, which may style itself but run and load nothing."""

from __future__ import annotations

import pytest
from django.conf import settings
from rest_framework.test import APIClient

from analysis.services import analysis_run_create, analysis_run_execute
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def directives(header: str) -> dict[str, list[str]]:
    return {part.split()[0]: part.split()[1:] for part in header.split(";") if part.strip()}


def test_the_policy_forbids_inline_code_and_eval():
    policy = settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]
    for name in ("script-src", "style-src", "default-src"):
        assert policy[name] == ["'self'"], name
    assert policy["object-src"] == ["'none'"] and policy["frame-ancestors"] == ["'none'"]
    assert policy["base-uri"] == ["'none'"] and policy["form-action"] == ["'self'"]


def test_every_response_carries_the_header(client, annotated_project):
    project = annotated_project
    worker = UserFactory()
    staff = UserFactory(role="admin", is_superuser=True)
    run = analysis_run_execute(run_id=analysis_run_create(project=project, kind="agreement", enqueue=False).pk)
    responses = {"login page": client.get("/accounts/login/"),
                 "redirect to the login": client.get("/projects/"),
                 "404 page": client.get("/no/such/page/"),
                 "password reset (off)": client.get("/accounts/password_reset/")}
    client.force_login(worker)
    responses.update({"project list": client.get("/projects/"),
                      "a project one may not see": client.get(f"/projects/{project.slug}/overview/")})
    client.force_login(staff)
    responses.update({
        "annotate preview": client.get(f"/projects/{project.slug}/annotate/"),
        "overview": client.get(f"/projects/{project.slug}/overview/"),
        "analysis": client.get(f"/projects/{project.slug}/analysis/"),
        "CSV export": client.get(f"/projects/{project.slug}/export/annotations.csv"),
        "admin index": client.get("/admin/"),
        "admin change page": client.get(f"/admin/annotation/project/{project.pk}/change/"),
        "a POST answered 405": client.post(f"/projects/{project.slug}/media/x.wav"),
    })
    api = APIClient()
    responses["API without a login"] = api.get("/api/projects/")
    api.force_authenticate(worker)
    responses["API list"] = api.get("/api/projects/")
    responses["API 404"] = api.get("/api/assignments/999999/annotation/")
    for what, response in responses.items():
        header = response.get("Content-Security-Policy", "")
        assert directives(header).get("script-src") == ["'self'"], f"{what} ({response.status_code}): {header!r}"
        assert "unsafe-inline" not in header and "unsafe-eval" not in header, what
    # A figure: its own styles, no script, nothing loaded.
    for url in (f"/projects/{project.slug}/analysis/hourly.svg",
                f"/projects/{project.slug}/analysis/runs/{run.pk}/curve.svg"):
        figure = client.get(url)
        assert figure.status_code == 200 and figure["Content-Type"] == "image/svg+xml"
        policy = directives(figure["Content-Security-Policy"])
        assert policy["default-src"] == ["'none'"] and "script-src" not in policy
        assert policy["style-src"] == ["'unsafe-inline'"]


def test_no_template_has_inline_script_style_or_handler():
    """What the policy would block, found before a browser is: script elements without src,
    style attributes and elements, on* handlers, javascript: URLs, in every template of the
    project (the admin's and DRF's are checked in Chromium)."""
    import re
    from pathlib import Path

    root = Path(settings.BASE_DIR)
    patterns = {
        "inline script": re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.S),
        "style attribute": re.compile(r"\sstyle=[\"']"),
        "style element": re.compile(r"<style[\s>]"),
        "event handler": re.compile(r"\son[a-z]+=[\"']"),
        "javascript: URL": re.compile(r"=[\"']\s*javascript:", re.I),
    }
    found = []
    for path in root.glob("**/templates/**/*"):
        if ".venv" in path.parts or not path.is_file() or path.suffix not in {".html", ".svg", ".txt"}:
            continue
        text = path.read_text()
        found += [f"{path.relative_to(root)}: {what}" for what, rx in patterns.items() if rx.search(text)]
    assert found == []


def test_an_item_page_with_a_progress_bar_draws_it_by_class(client):
    project = ProjectFactory(redundancy=1, max_items_per_worker=4)
    ItemFactory.create_batch(2, project=project)
    worker = UserFactory()
    client.force_login(worker)
    page = client.get(f"/projects/{project.slug}/annotate/").content.decode()
    assert 'role="progressbar"' in page and 'class="pct-0"' in page and "style=" not in page


def test_the_api_answers_json_even_to_a_browser(client):
    """DRF's browsable API styles its pages with style attributes the policy blocks: the API
    answers JSON alone, whatever the request asks for and in every mode; its pages are /api/docs/."""
    assert settings.REST_FRAMEWORK["DEFAULT_RENDERER_CLASSES"] == ["rest_framework.renderers.JSONRenderer"]
    ProjectFactory(name="Seen", open_to_all=True)
    client.force_login(UserFactory())
    browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
    for path in ("/api/projects/", "/api/task-types/", "/api/projects/?format=api"):
        response = client.get(path, HTTP_ACCEPT=browser)
        if "format=api" in path:
            # No renderer answers to the browsable format: DRF's 404, as JSON.
            assert response.status_code == 404 and response["Content-Type"] == "application/json", path
            continue
        assert response.status_code == 200 and response["Content-Type"] == "application/json", path
        assert b"<html" not in response.content and response.json()
    # A client that takes HTML alone is told that the API has none.
    refused = client.get("/api/projects/", HTTP_ACCEPT="text/html")
    assert refused.status_code == 406 and refused["Content-Type"] == "application/json"
