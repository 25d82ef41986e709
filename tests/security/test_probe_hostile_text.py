"""Hostile text through every task type, rendered in Chromium: no injected script ever runs.

Each registered type's worked example is imported with script payloads in every text field the
type accepts (the payload's texts, the key points, the prompts), then answered with the payload in
every free-text answer field (the reason, the comment). A worker loads each item's annotation page
and the page that edits the answer; staff load the overview, the worker's page, the adjudication
page and every page of the type. An injected payload would count itself in ``window.__pwned``:
the count must stay 0 on every page load, with no dialog, no event-handler attribute and no
``javascript:`` link carrying a payload, while the hostile text itself is shown (as text).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.urls import NoReverseMatch, reverse
from rest_framework.test import APIClient

from annotation.importers import parse_items
from annotation.models import Annotation
from annotation.services.items import items_import
from annotation.task_types import get_task_type, task_types
from annotation.task_types.records import FieldError
from tests.factories import ProjectFactory, UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SLUGS = [t.slug for t in task_types()]

# Every way out of a text node, an attribute, a script block and a template; each one that ran
# would add 1 to window.__pwned.
HOSTILE = (" <img src=x onerror=window.__pwned++><script>window.__pwned++</script>"
           "<svg onload=window.__pwned++></svg>\"><img src=x onerror=window.__pwned++>"
           "'><svg/onload=window.__pwned++></textarea></title></script><script>window.__pwned++</script>"
           "<a href=\"javascript:window.__pwned++\">link</a><iframe srcdoc=\"<script>parent.__pwned++</script>\">"
           "</iframe>{{ request }}${window.__pwned++}")
# A value that is nothing but a script URL, for a field that might become a link or a source.
SCRIPT_URL = "javascript:window.__pwned++//"
MARK = "onerror=window.__pwned++"
# Fields that hold identifiers, references or codes rather than text a person reads.
NOT_TEXT = {"id", "gold", "audio"}

CHECK = """() => {
  const bad = [];
  for (const el of document.querySelectorAll('*')) {
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase(), value = attr.value.replace(/\\s/g, '').toLowerCase();
      if (name.startsWith('on') && value.includes('__pwned')) bad.push(el.tagName + ' ' + name);
      if (['href', 'src', 'action', 'formaction', 'srcdoc', 'data'].includes(name) &&
          (value.startsWith('javascript:') || value.includes('__pwned'))) bad.push(el.tagName + ' ' + name);
    }
  }
  return {pwned: window.__pwned, bad: bad, text: document.body ? document.body.innerText : ''};
}"""


def leaves(value: Any, path: tuple = ()) -> Iterator[tuple]:
    """Paths to every string in a JSON value."""
    if isinstance(value, str):
        yield path
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from leaves(inner, (*path, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from leaves(inner, (*path, i))


def set_leaf(record: dict, path: tuple, text: str) -> dict:
    out = copy.deepcopy(record)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = text
    return out


def is_text(path: tuple) -> bool:
    names = [p for p in path if isinstance(p, str)]
    return not any(n in NOT_TEXT or n.endswith("_id") for n in names)


def hostile_record(task, record: dict, make) -> tuple[dict, int]:
    """The record with ``make(original)`` in every text field the type accepts it in, and how
    many fields took it."""
    def valid(candidate: dict) -> bool:
        try:
            task.clean_item(candidate)
        except (FieldError, ValueError, KeyError, TypeError):
            return False
        return True

    accepted = [p for p in leaves(record) if is_text(p) and valid(set_leaf(record, p, make(_get(record, p))))]
    while True:
        out = record
        for p in accepted:
            out = set_leaf(out, p, make(_get(record, p)))
        if valid(out) or not accepted:
            return out, len(accepted)
        accepted.pop()  # together they broke a rule spanning fields (a total length): drop one


def _get(record: Any, path: tuple) -> Any:
    for key in path:
        record = record[key]
    return record


def hostile_answer(task, answer: dict, payload: dict, make) -> dict:
    """The example's answer with the payload in each free-text answer field it is accepted in."""
    out = dict(answer)
    for f in task.answer_fields:
        # The example answers its first record: another record's options have other ids.
        choices = (task.gold_choices(payload, f.name) if f.name in task.gold_fields else None) or []
        if f.kind == "choice" and choices and out.get(f.name) not in choices:
            out[f.name] = choices[0]
        if f.kind == "choices" and choices and not set(out.get(f.name) or ()) <= set(choices):
            out[f.name] = choices[:1]
        if f.kind != "text":
            continue
        text = make("A1 gives a concrete example and a cost, A2 only repeats its claim.")
        try:
            task.clean_answer({**out, f.name: text}, payload=payload)
        except (FieldError, ValueError):
            continue
        out[f.name] = text
    return out


class Pages:
    """Loads pages in one browser context and records what each did."""

    def __init__(self, browser, live_server, user) -> None:
        client = Client()
        client.force_login(user)
        self.base = live_server.url
        self.context = browser.new_context()
        self.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME,
                                   "value": client.cookies[settings.SESSION_COOKIE_NAME].value, "url": self.base}])
        self.context.add_init_script("window.__pwned = 0; window.alert = window.confirm = window.prompt ="
                                     " () => { window.__pwned++; };")
        self.page = self.context.new_page()
        self.dialogs: list[str] = []
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.loads = 0

    def load(self, path: str) -> str:
        response = self.page.goto(self.base + path)
        assert response is not None and response.status == 200, f"{path}: {response and response.status}"
        # The load event waited for the images (whose errors would run a handler); a moment more
        # lets the page's own scripts render what they fetch.
        self.page.wait_for_timeout(150)
        found = self.page.evaluate(CHECK)
        self.loads += 1
        assert found["pwned"] == 0, f"{path}: {found['pwned']} injected scripts ran"
        assert not found["bad"], f"{path}: payload turned into markup: {found['bad']}"
        assert not self.dialogs, f"{path}: dialogs {self.dialogs}"
        return found["text"]


def markup(text: str) -> str:
    return text + HOSTILE


def script_url(text: str) -> str:
    return SCRIPT_URL


@pytest.mark.parametrize("slug", SLUGS)
def test_hostile_text_runs_no_script_on_any_page(slug, live_server, browser):
    task = get_task_type(slug)
    example = task.example()
    # The second record (every example has at least two) is nothing but script URLs; the others
    # carry the markup.
    makers = [script_url if n == 1 else markup for n in range(len(example.records))]
    records, fields = zip(*(hostile_record(task, r, make) for r, make in zip(example.records, makers, strict=True)),
                          strict=True)
    assert min(fields) >= 1, f"{slug}: no text field of its records takes hostile text"
    project = ProjectFactory(task_type=slug, redundancy=1, options=task.clean_options(example.options))
    items_import(project=project, parsed=parse_items(json.dumps(list(records)).encode(), fmt="json", task_type=task))
    worker = UserFactory()
    api = APIClient()
    api.force_authenticate(worker)

    mine = Pages(browser, live_server, worker)
    shown = []
    for _ in records:
        shown.append(mine.load(f"/projects/{project.slug}/annotate/"))
        held = api.post(f"/api/projects/{project.slug}/assignments/next/").json()["assignment"]
        make = script_url if SCRIPT_URL in json.dumps(held["item"]["payload"]) else markup
        body = hostile_answer(task, example.answer, held["item"]["payload"], make)
        assert api.post(f"/api/assignments/{held['id']}/submit/", body, format="json").status_code == 201
    last = Annotation.objects.filter(assignment__worker=worker).latest("pk").assignment
    shown.append(mine.load(reverse("edit", args=[project.slug, last.pk])))
    for marker in (MARK, SCRIPT_URL):
        assert any(marker in text for text in shown), f"{slug}: {marker} never reached the annotation page"

    staff = Pages(browser, live_server, UserFactory(role="admin"))
    paths = [reverse("overview", args=[project.slug]), reverse("quality-worker", args=[project.slug, worker.pk]),
             reverse("adjudication", args=[project.slug])]
    if task.reason_review:
        paths.append(reverse(task.reason_review[0], args=[project.slug]))
    if task.urls:
        from importlib import import_module

        for pattern in import_module(task.urls).urlpatterns:
            if (pattern.name or "").startswith("api-"):
                continue  # the type's API operations are not pages (some take only POST)
            try:
                path = reverse(pattern.name, kwargs={"slug": project.slug})
            except NoReverseMatch:
                continue  # a page that needs more than the project
            if "." not in path.rsplit("/", 1)[-1]:  # pages, not downloads
                paths.append(path)
    for path in dict.fromkeys(paths):
        staff.load(path)
    assert mine.loads + staff.loads >= len(records) + 4
    mine.context.close()
    staff.context.close()


def test_the_check_counts_a_payload_that_runs(browser):
    """The same payloads, put into a page as markup, are seen: the zero above means something."""
    context = browser.new_context()
    context.add_init_script("window.__pwned = 0;")
    page = context.new_page()
    page.set_content(f"<body><p>x{HOSTILE}</p></body>")
    page.wait_for_timeout(150)
    found = page.evaluate(CHECK)
    assert found["pwned"] >= 3 and found["bad"]
    context.close()
