"""The API's docs page in Chromium: Swagger UI loads from this site (no CDN), renders every
operation of the schema, and the Content-Security-Policy blocks nothing on the way."""

from __future__ import annotations

import os

import pytest
from drf_spectacular.generators import SchemaGenerator

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(
  e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber));
"""
# Where the screenshot goes to be looked at (API_DOCS_SCREENSHOT), else the test's own folder.
SCREENSHOT = os.environ.get("API_DOCS_SCREENSHOT", "")


def _operations() -> int:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return sum(len(ops) for ops in schema["paths"].values())


def test_the_docs_page_renders_every_operation_within_the_policy(live_server, browser, tmp_path):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(WATCH)
    page = context.new_page()
    page.set_default_timeout(20_000)
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type in ("error", "warning") else None)
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith((live_server.url, "data:")) else None)

    response = page.goto(live_server.url + "/api/docs/")
    assert response is not None and response.status == 200
    assert "default-src 'self'" in (response.headers.get("content-security-policy") or "")
    page.wait_for_selector(".opblock", state="attached")
    page.wait_for_load_state("networkidle")
    # Open one operation, as a reader would: its parameters, body and responses render too.
    page.locator("#operations-annotating-assignment_submit .opblock-summary").click()
    page.wait_for_selector("#operations-annotating-assignment_submit .responses-table")
    page.locator("#operations-annotating-assignment_submit").scroll_into_view_if_needed()
    page.screenshot(path=SCREENSHOT or str(tmp_path / "api-docs.png"), full_page=False)

    assert page.locator(".opblock").count() == _operations()
    assert page.locator(".opblock-tag").count() >= 10
    assert "ArgCrowd API" in page.locator(".info .title").inner_text()
    violations = page.evaluate("window.__csp")
    csp_console = [m for m in console if "Content Security Policy" in m or "Content-Security-Policy" in m]
    assert violations == [] and csp_console == [], (violations, csp_console)
    assert outside == []
    context.close()
