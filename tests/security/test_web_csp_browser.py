"""The Content-Security-Policy in Chromium: a crawl as admin, researcher, annotator and an
anonymous visitor, from the start pages along every same-origin link (GET only), over projects
of all six task types with their audio, reports, an import job in progress, a bonus, an audit
entry, a worker and an invite. Every page loads, its htmx requests and the audio player run,
and no page reports a violation; the pages named in ``_required`` must be among those reached."""

from __future__ import annotations

import json
import re
import time
from decimal import Decimal
from urllib.parse import urljoin, urlsplit

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from playwright.sync_api import expect
from rest_framework.test import APIClient

from analysis.reports import get_report, page_url, report_kinds
from analysis.services import analysis_run_create, analysis_run_execute
from annotation.models import ImportJob
from annotation.services.accounts import invite_create
from annotation.services.audit import audit_record
from annotation.task_types import get_task_type, task_types
from recruiting.services.bonuses import bonus_grant
from tests.annotation.views.media.test_assignment_media import MEDIA_SLUGS, project_with_audio
from tests.factories import ProjectFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("media_root")]
SLUGS = [t.slug for t in task_types()]
# Bounds of one role's crawl: pages opened and seconds spent.
MAX_PAGES = 160
MAX_SECONDS = 60
# Links the crawl does not follow: leaving the session, files (no document a policy governs),
# the API's JSON (its one page, /api/docs/, is a start page), and a page sorted or filtered
# otherwise (the same page again: a link with a query).
SKIP = re.compile(r"logout|\.(csv|tsv|zip|svg|jsonl?|wav|mp3|txt|yaml)$|/media/|/files/|/export/|^/static/"
                  r"|^/admin/r/|^/api/(?!docs/)|^/admin/jsi18n/|\?")

# Collects what the policy blocks, from the first script on: the event fires on the document for
# every blocked script, style, handler, image, media or connection.
WATCH = """
window.__csp = [];
document.addEventListener('securitypolicyviolation', e => window.__csp.push(
  e.violatedDirective + ' blocked ' + (e.blockedURI || 'inline') + ' at ' + e.sourceFile + ':' + e.lineNumber));
"""


def _shape(path: str) -> str:
    """A page's kind: its address with the numbers out, and a listening project's staff pages
    as those of the project of its type (only the annotator's pages differ). The crawl opens one
    page of each kind; each project's admin change page is a kind of its own (it leads to the
    type's own tools)."""
    if re.fullmatch(r"/admin/annotation/project/\d+/change/", path):
        return path
    # The admin's add, history and delete pages: one of each is enough, whatever the model.
    if shared := re.fullmatch(r"/admin/\w+/\w+/(?:\d+/)?(add|history|delete)/", path):
        return f"/admin/{shared[1]}"
    if not re.search(r"/(annotate|guidelines)/", path):
        path = path.replace("/csp-listening-", "/csp-")
    return re.sub(r"\d+", "N", path)


class Visitor:
    """A browser context, logged in or anonymous, that records CSP violations, CSP console
    errors and htmx requests per page."""

    def __init__(self, browser, live_server, username: str | None) -> None:
        self.base = live_server.url
        self.context = browser.new_context(viewport={"width": 1280, "height": 900})
        self.context.add_init_script(WATCH)
        self.page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.console: list[str] = []
        self.htmx: list[str] = []
        self.page.on("console", lambda m: self.console.append(m.text) if m.type == "error" else None)
        self.page.on("requestfinished", lambda r: self.htmx.append(urlsplit(r.url).path)
                     if r.headers.get("hx-request") else None)
        self.reached: set[str] = set()
        if username is not None:
            self.open("/accounts/login/")
            self.page.locator("#id_username").fill(username)
            self.page.locator("#id_password").fill("pw-for-tests")
            with self.page.expect_navigation(url=lambda url: "/accounts/login/" not in url):
                self.page.keyboard.press("Enter")
            self.page.wait_for_load_state("load")
            self.check("after logging in")

    def open(self, path: str) -> list[str] | None:
        """Opens a page; returns the same-origin links of an HTML page, None for anything else."""
        response = self.page.goto(self.base + path)
        assert response is not None and response.status < 500, f"{path}: {response and response.status}"
        self.status = response.status
        assert "default-src 'self'" in (response.headers.get("content-security-policy") or ""), path
        if not response.headers.get("content-type", "").startswith("text/html"):
            return None
        self.page.wait_for_load_state("load")
        # Where htmx loads a part on arrival, or polls every second, let it ask once.
        if self.page.locator("[hx-trigger*='every 1s']").count():
            self.page.wait_for_event("request", lambda r: r.headers.get("hx-request") == "true", timeout=5_000)
            self.page.wait_for_load_state("networkidle")
        elif self.page.locator("[hx-trigger*='load']").count():
            self.page.wait_for_load_state("networkidle")
        self.reached.add(urlsplit(self.page.url).path if response.status < 400 else path)
        self.check(path)
        hrefs = self.page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
        links = []
        for href in hrefs:
            url = urlsplit(urljoin(self.page.url, href))
            if f"{url.scheme}://{url.netloc}" == self.base:
                links.append(url.path + (f"?{url.query}" if url.query else ""))
        return links

    def check(self, where: str) -> None:
        violations = self.page.evaluate("window.__csp || []")
        csp_console = [m for m in self.console if "Content Security Policy" in m or "Content-Security-Policy" in m]
        assert violations == [] and csp_console == [], f"{where}: {violations} {csp_console}"

    def crawl(self, starts: list[str], *, opened_before: set[str] = frozenset(), admin: bool = True) -> set[str]:
        """Opens the start pages, then the pages they link to, breadth first, one of each kind
        and none of a kind in ``opened_before`` (nor of the Django admin unless ``admin``);
        returns the kinds opened."""
        seen: set[str] = set(opened_before) - {_shape(p) for p in starts}
        opened: set[str] = set()
        queue = list(starts)
        deadline = time.monotonic() + MAX_SECONDS
        while queue and len(seen) < MAX_PAGES and time.monotonic() < deadline:
            path = queue.pop(0)
            if _shape(path) in seen:
                continue
            seen.add(_shape(path))
            links = self.open(path)
            if links is not None and self.status < 400:
                opened.add(_shape(path))
            self.act(path)
            queue += [link for link in links or () if not SKIP.search(link) and _shape(link) not in seen
                      and (admin or not link.startswith("/admin/"))]
        return opened

    def act(self, path: str) -> None:
        """What a user does on some pages, checked again after: play the audio, send an empty
        answer, select every row of an admin list."""
        page = self.page
        if re.fullmatch(r"/projects/[^/]+/annotate/", path) and page.locator("#task-form").count():
            if page.locator("audio").count():
                # Plain players load on demand: ask them to; the listening player plays when asked.
                page.evaluate("document.querySelectorAll('audio:not([data-audio])').forEach(a => { a.preload = 'auto'; a.load(); })")
                if page.get_by_test_id("play").count():
                    page.get_by_test_id("play").first.click()
                page.wait_for_function("() => [...document.querySelectorAll('audio')].every(a => a.readyState >= 2 || a.error)")
                assert page.evaluate("[...document.querySelectorAll('audio')].every(a => a.error === null)"), path
                self.reached.add(f"{path} (audio played)")
            # An empty answer: refused by the page's checks or by the server, either way shown.
            page.get_by_test_id("submit").click()
            page.wait_for_timeout(300)
            self.check(f"{path}: after a refused answer")
        elif path == "/admin/annotation/item/" and page.locator("#action-toggle").count():
            page.locator("#action-toggle").check()
            expect(page.locator("input.action-select").first).to_be_checked()
            self.check("the item list after selecting all")
        elif re.search(r"/analysis/$|/reports/", path):
            # Every figure on the page drew (an <img> of an SVG the policy let through).
            assert page.evaluate("[...document.images].every(i => i.complete && i.naturalWidth > 0)"), path

    def close(self) -> None:
        self.context.close()


def _project(slug: str, admin):
    task = get_task_type(slug)
    example = task.example()
    project = ProjectFactory(task_type=slug, slug=f"csp-{slug.replace('_', '-')}", redundancy=2,
                             options=task.clean_options(example.options), open_to_all=False)
    api = APIClient()
    api.force_authenticate(admin)
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


def _world() -> dict:
    """Projects of every type (two answers each, every report run) and, for the types that play
    audio, a listening project; an import job in progress, a bonus, an audit entry, an invite and
    a marketplace project. Returns what the crawl must reach."""
    admin = UserFactory(username="csp-admin", role="admin", is_superuser=True)
    UserFactory(username="csp-researcher", role="researcher")
    annotator = UserFactory(username="csp-annotator")
    helper = UserFactory(username="csp-worker")
    projects = {slug: _project(slug, admin) for slug in SLUGS}
    listening = {slug: project_with_audio(slug) for slug in MEDIA_SLUGS}
    for slug, project in listening.items():
        # Slugs without numbers: each project's pages are a kind of their own to the crawl.
        project.slug = f"csp-listening-{slug.replace('_', '-')}"
        project.save()
    for project in [*projects.values(), *listening.values()]:
        project.members.add(annotator, helper)
    reports = []
    for slug, project in projects.items():
        _answer_through_the_api(project, helper)
        for kind, _ in report_kinds(slug):
            run = analysis_run_execute(run_id=analysis_run_create(project=project, kind=kind, enqueue=False).pk)
            assert run.status == "done", (slug, kind, run.error)
            reports.append(page_url(get_report(kind).page_key, project.slug))
    first = projects[SLUGS[0]]
    job = ImportJob.objects.create(project=first, kind="items", filename="items.json", size=10, created_by=admin)
    bonus_grant(project=first, worker=helper, amount=Decimal("0.50"), reason="well argued", actor=admin)
    audit_record(actor=admin, action="worker_blocked", project=first, target=helper.username)
    invite = invite_create(user=UserFactory(username="csp-invited"), project=first)
    market = ProjectFactory(slug="csp-market", open_to_all=False, external_entry=True, panel="prolific", redundancy=1,
                            consent_text="We keep your answers for research.")
    _project_items_like(market, first)
    mturk = listening[MEDIA_SLUGS[0]]
    mturk.external_entry, mturk.panel = True, "mturk"
    mturk.save()
    every = [*projects.values(), *listening.values()]
    return {
        "starts": {
            "annotator": ["/", "/projects/"],
            "researcher": ["/", "/projects/"],
            # An import job's page is reached by the redirect after an upload, not by a link.
            "admin": ["/", "/admin/", "/api/docs/", f"/admin/annotation/project/{first.pk}/imports/{job.pk}/"],
            "anonymous": ["/accounts/login/", "/api/docs/", f"/invite/{invite}/",
                          f"/start/{market.slug}/?PROLIFIC_PID=5f00aa&STUDY_ID=st&SESSION_ID=se",
                          f"/start/{mturk.slug}/?assignmentId=ASSIGNMENT_ID_NOT_AVAILABLE&hitId=H1"],
        },
        "required": {
            "annotator": {"/projects/", *(f"/projects/{p.slug}/annotate/" for p in every),
                          *(f"/projects/{p.slug}/annotate/ (audio played)" for p in listening.values()),
                          *(f"/projects/{p.slug}/guidelines/" for p in every)},
            "researcher": {*reports, f"/projects/{first.slug}/bonuses/", f"/projects/{first.slug}/workers/{helper.pk}/",
                           *(f"/projects/{p.slug}/{page}/" for p in projects.values()
                             for page in ("overview", "quality", "analysis", "quality/adjudication", "quality/flags",
                                          "quality/rules"))},
            "admin": {"/admin/", f"/admin/annotation/project/{first.pk}/imports/{job.pk}/", "/admin/annotation/auditentry/",
                      "/admin/recruiting/bonus/", "/admin/annotation/mediafile/", "/admin/annotation/importjob/",
                      "/admin/annotation/item/", "/admin/auth/user/", "/api/docs/",
                      *(reverse(name, args=[p.pk]) for p in projects.values()
                        for name, _ in get_task_type(p.task_type).item_tools)},
            "anonymous": {"/accounts/login/", "/api/docs/", f"/invite/{invite}/", f"/projects/{market.slug}/welcome/",
                          f"/start/{mturk.slug}/"},
        },
        "htmx": {"admin": f"/admin/annotation/project/{first.pk}/imports/{job.pk}/",
                 "researcher": f"/projects/{first.slug}/workers/{helper.pk}/"},
    }


def _project_items_like(project, like) -> None:
    """The marketplace project: the first project's type and items."""
    task = get_task_type(like.task_type)
    project.task_type, project.options = like.task_type, like.options
    project.save()
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    upload = SimpleUploadedFile("items.json", json.dumps(task.example().records).encode())
    assert api.post(f"/api/projects/{project.slug}/items/import/", {"file": upload}, format="multipart").status_code == 201


def test_a_crawl_as_every_role_meets_no_violation(live_server, browser, settings):
    settings.PASSWORD_RESET_ENABLED = True
    world = _world()
    kinds: set[str] = set()
    for role, username in (("annotator", "csp-annotator"), ("researcher", "csp-researcher"),
                           ("admin", "csp-admin"), ("anonymous", None)):
        visitor = Visitor(browser, live_server, username)
        # The admin skips the kinds of page the researcher opened (the same templates); the
        # Django admin is the admin's to crawl.
        kinds = visitor.crawl(world["starts"][role], opened_before=kinds if role == "admin" else set(),
                              admin=role == "admin")
        missing = world["required"][role] - visitor.reached
        assert not missing, f"{role}: the crawl did not reach {sorted(missing)}"
        if role in world["htmx"]:
            assert world["htmx"][role] in visitor.htmx, f"{role}: htmx never asked {world['htmx'][role]}"
        visitor.close()


def test_the_account_pages_pass_the_policy(live_server, browser, settings):
    settings.PASSWORD_RESET_ENABLED = True
    UserFactory(username="csp-plain")
    visitor = Visitor(browser, live_server, "csp-plain")
    for path in ("/projects/", "/accounts/password_change/"):
        visitor.open(path)
    visitor.close()
    visitor = Visitor(browser, live_server, None)
    for path in ("/accounts/login/", "/accounts/password_reset/"):
        visitor.open(path)
    assert visitor.reached == {"/accounts/login/", "/accounts/password_reset/"}
    # The watch sees what the policy blocks: a style attribute added to the page is reported.
    visitor.page.evaluate("document.body.insertAdjacentHTML('beforeend', '<p style=\"color: red\">x</p>')")
    visitor.page.wait_for_function("window.__csp.length > 0")
    with pytest.raises(AssertionError, match="style-src"):
        visitor.check("a page given a style attribute")
    visitor.close()
