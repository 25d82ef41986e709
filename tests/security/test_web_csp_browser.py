"""The Content-Security-Policy in Chromium: every page of every task type, as its annotator
(the audio player included), its researchers (staff pages, reports with their figures) and an
admin (the Django admin and the project's tools), loads and works with no violation reported."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from playwright.sync_api import expect
from rest_framework.test import APIClient

from analysis.reports import get_report, page_url, report_kinds
from analysis.services import analysis_run_create, analysis_run_execute
from annotation.models import Item, MediaFile
from annotation.task_types import get_task_type, task_types
from tests.annotation.task_types.test_contract import type_pages
from tests.annotation.views.test_assignment_media import MEDIA_SLUGS, member, project_with_audio
from tests.factories import ProjectFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("media_root")]
SLUGS = [t.slug for t in task_types()]

# Collects what the policy blocks, from the first script on: the event fires on the document for
# every blocked script, style, handler, image, media or connection.
WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(
  e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber));
"""


class Visitor:
    """A logged-in browser context that records CSP violations and console errors per page."""

    def __init__(self, browser, live_server, username: str) -> None:
        self.base = live_server.url
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.add_init_script(WATCH)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.console: list[str] = []
        self.page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)
        self.visited = 0
        self.open("/accounts/login/")
        self.page.locator("#id_username").fill(username)
        self.page.locator("#id_password").fill("pw-for-tests")
        with self.page.expect_navigation(url=lambda url: "/accounts/login/" not in url):
            self.page.keyboard.press("Enter")
        self.page.wait_for_load_state("load")
        self.check("/accounts/login/ (after logging in)")

    def open(self, path: str) -> None:
        response = self.page.goto(self.base + path)
        assert response is not None and response.status < 400, f"{path}: {response and response.status}"
        assert "default-src 'self'" in (response.headers.get("content-security-policy") or ""), path
        self.page.wait_for_load_state("load")
        self.visited += 1
        self.check(path)

    def check(self, where: str) -> None:
        violations = self.page.evaluate("window.__csp || []")
        csp_console = [m for m in self.console if "Content Security Policy" in m or "Content-Security-Policy" in m]
        assert violations == [] and csp_console == [], f"{where}: {violations} {csp_console}"

    def close(self) -> None:
        self.context.close()


def _project(slug: str):
    task = get_task_type(slug)
    example = task.example()
    project = ProjectFactory(task_type=slug, redundancy=2, options=task.clean_options(example.options), open_to_all=False)
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    upload = SimpleUploadedFile("items.json", json.dumps(example.records).encode())
    assert api.post(f"/api/projects/{project.slug}/items/import/", {"file": upload}, format="multipart").status_code == 201
    return project


def _answer_through_the_api(project, worker) -> None:
    example = get_task_type(project.task_type).example()
    api = APIClient()
    api.force_authenticate(worker)
    nxt = api.post(f"/api/projects/{project.slug}/assignments/next/").json()
    r = api.post(f"/api/assignments/{nxt['assignment']['id']}/submit/", example.answer, format="json")
    assert r.status_code == 201, r.content


@pytest.mark.parametrize("slug", SLUGS)
def test_every_page_of_a_type_passes_the_policy(slug, live_server, browser):
    project = _project(slug)
    for _ in range(2):
        _answer_through_the_api(project, member(project))
    runs = {kind: analysis_run_execute(run_id=analysis_run_create(project=project, kind=kind, enqueue=False).pk)
            for kind, _ in report_kinds(slug)}
    assert all(run.status == "done" for run in runs.values()), {k: r.error for k, r in runs.items()}
    annotator = member(project)
    annotator.username = f"csp-annotator-{slug}"
    annotator.save()
    UserFactory(username=f"csp-researcher-{slug}", role="researcher")
    UserFactory(username=f"csp-admin-{slug}", role="admin", is_superuser=True)

    # The annotator: the item's page, an empty answer refused, the
    # guidelines; where the type plays audio, a listening project's page with its player too.
    listening = project_with_audio(slug) if slug in MEDIA_SLUGS else None
    if listening is not None:
        listening.members.add(annotator)
    visitor = Visitor(browser, live_server, annotator.username)
    visitor.open("/projects/")
    for shown in filter(None, (project, listening)):
        visitor.open(f"/projects/{shown.slug}/annotate/")
        page = visitor.page
        expect(page.locator("#task-form")).to_be_visible()
        if shown is listening:
            assert page.locator("audio").count() > 0
            # Plain players load on demand: ask them to; the listening player plays when asked.
            page.evaluate("document.querySelectorAll('audio:not([data-audio])').forEach(a => { a.preload = 'auto'; a.load(); })")
            if page.get_by_test_id("play").count():
                page.get_by_test_id("play").first.click()
            page.wait_for_function("() => [...document.querySelectorAll('audio')].every(a => a.readyState >= 2 || a.error)")
            assert page.evaluate("[...document.querySelectorAll('audio')].every(a => a.error === null)")
        # An empty answer: refused by the page's checks or by the server, either way shown.
        page.get_by_test_id("submit").click()
        page.wait_for_timeout(500)
        visitor.check(f"{shown.slug}: after a refused answer")
        visitor.open(f"/projects/{shown.slug}/guidelines/")
    visitor.close()

    # A researcher: the staff pages, every report with its figures, the type's own pages.
    visitor = Visitor(browser, live_server, f"csp-researcher-{slug}")
    for path in (f"/projects/{project.slug}/annotate/", f"/projects/{project.slug}/overview/",
                 f"/projects/{project.slug}/quality/", f"/projects/{project.slug}/quality/adjudication/",
                 f"/projects/{project.slug}/quality/flags/", f"/projects/{project.slug}/quality/rules/",
                 f"/projects/{project.slug}/analysis/"):
        visitor.open(path)
    for kind, _ in report_kinds(slug):
        visitor.open(page_url(get_report(kind).page_key, project.slug))
        # Every figure on the page drew (an <img> of an SVG the policy let through).
        images = visitor.page.locator("img")
        for i in range(images.count()):
            assert visitor.page.evaluate("img => img.complete && img.naturalWidth > 0", images.nth(i).element_handle())
    for pattern in type_pages(get_task_type(slug)):
        path = reverse(pattern.name, kwargs={"slug": project.slug})
        # Pages only: a type's downloads are no documents a policy governs.
        if "text/html" in visitor.page.request.get(live_server.url + path).headers.get("content-type", ""):
            visitor.open(path)
    visitor.close()

    # An admin: the Django admin's lists, a change page, and the project's tools.
    visitor = Visitor(browser, live_server, f"csp-admin-{slug}")
    item = Item.objects.filter(project=project).first()
    paths = ["/admin/", "/admin/annotation/project/", f"/admin/annotation/project/{project.pk}/change/",
             "/admin/annotation/item/", f"/admin/annotation/item/{item.pk}/change/", "/admin/auth/user/",
             f"/admin/auth/user/{annotator.pk}/change/", f"/admin/annotation/project/{project.pk}/delete/"]
    paths += [reverse(url_name, args=[project.pk]) for url_name, _ in get_task_type(slug).item_tools]
    media = MediaFile.objects.filter(project=listening).first() if listening is not None else None
    if media is not None:
        paths += ["/admin/annotation/mediafile/", f"/admin/annotation/mediafile/{media.pk}/delete/"]
    for path in paths:
        visitor.open(path)
    # The admin's own scripts run: the change list's select-all box checks every row.
    visitor.open("/admin/annotation/item/")
    visitor.page.locator("#action-toggle").check()
    expect(visitor.page.locator("input.action-select").first).to_be_checked()
    visitor.check("the item list after selecting all")
    visitor.close()
    assert visitor.visited > 10


def test_the_pages_around_the_projects_pass_the_policy(live_server, browser, settings):
    settings.PASSWORD_RESET_ENABLED = True
    UserFactory(username="csp-plain")
    visitor = Visitor(browser, live_server, "csp-plain")
    for path in ("/projects/", "/accounts/password_change/"):
        visitor.open(path)
    visitor.close()
    anonymous = browser.new_context()
    anonymous.add_init_script(WATCH)
    page = anonymous.new_page()
    for path in ("/accounts/login/", "/accounts/password_reset/"):
        response = page.goto(live_server.url + path)
        assert response.status == 200 and response.headers.get("content-security-policy")
        page.wait_for_load_state("load")
        assert page.evaluate("window.__csp") == [], path
    anonymous.close()
