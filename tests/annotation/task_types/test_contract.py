"""Every registered task type through the whole workflow, with its own worked example: import →
next → invalid and valid submit (web and API) → long frame → agreement → export → pages."""

from __future__ import annotations

import csv
import io
import json
from importlib import import_module

import pytest
from django import forms
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import get_commands, load_command_class
from django.urls import URLPattern, reverse
from rest_framework.test import APIClient

from analysis.frames import annotation_frame
from analysis.reports import get_report, page_url, report_kinds
from analysis.services import analysis_run_create, analysis_run_execute, report_input
from annotation.exports import export_columns
from annotation.models import CHECK_ITEM_REDUNDANCY, Annotation, Assignment, Item, ItemKind, Purpose
from annotation.task_types import get_task_type, task_types
from annotation.task_types.base import LEVELS, NO_CONTEXT, AnswerData
from annotation.task_types.shown_order import assignment_seed, order_for
from quality.models import CheckResult, GoldAnswer, QualityPolicy
from quality.services import check_serving
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
SLUGS = [t.slug for t in task_types()]


def test_task_types_are_discovered_not_listed():
    import annotation.task_types as package

    source = open(package.__file__, encoding="utf-8").read()
    assert len(SLUGS) >= 2
    for slug in SLUGS:
        assert f"import {slug}" not in source and f'"{slug}"' not in source


@pytest.mark.parametrize("slug", SLUGS)
def test_declarations_are_complete(slug):
    task = get_task_type(slug)
    assert task.level in LEVELS
    assert task.answer_fields and task.export_columns and task.import_fields
    assert task.level not in ("ordinal", "interval") or task.categories, "ordered labels need their order"
    if task.options_form is not None:
        defaults = task.option_defaults()
        assert task.clean_options({}) == defaults
        choices = [n for n, f in task.options_form().fields.items() if isinstance(f, forms.ChoiceField)]
        if choices:
            with pytest.raises(ValueError, match=f"project options.*{choices[0]}"):
                task.clean_options({choices[0]: "not a choice"})
    assert report_kinds(slug), "at least the agreement report applies to every type"


@pytest.mark.parametrize("slug", SLUGS)
def test_one_parser_reads_forms_and_json_alike(slug):
    from django.http import QueryDict

    task = get_task_type(slug)
    example = task.example()
    form = QueryDict(mutable=True)
    for name, value in example.form:
        form.appendlist(name, value)
    as_form, form_errors = AnswerData(form).read(task.answer_fields)
    as_json, json_errors = AnswerData(example.answer).read(task.answer_fields)
    assert form_errors == json_errors == {}
    assert as_form == as_json


@pytest.mark.parametrize("slug", SLUGS)
def test_whole_workflow(slug, client):
    task = get_task_type(slug)
    example = task.example()
    project = ProjectFactory(task_type=slug, redundancy=2, options=task.clean_options(example.options),
                             open_to_all=False)
    admin = UserFactory(role="admin")
    api_admin = APIClient()
    api_admin.force_authenticate(admin)

    # Import: all of the example's records, through the API.
    upload = SimpleUploadedFile("items.json", json.dumps(example.records).encode())
    r = api_admin.post(f"/api/projects/{project.slug}/items/import/", {"file": upload}, format="multipart")
    assert r.status_code == 201, r.content
    assert Item.objects.filter(project=project).count() == len(example.records)

    # The web: the page shows an item; an invalid answer comes back with the field's message and
    # nothing stored; the valid one is stored.
    web_worker, api_user = UserFactory(), UserFactory()
    project.members.add(web_worker, api_user)
    client.force_login(web_worker)
    page = client.get(f"/projects/{project.slug}/annotate/")
    assert page.status_code == 200 and b'id="task-form"' in page.content
    submit_url = page.content.decode().split('hx-post="')[1].split('"')[0]
    invalid = [(k, v) for k, values in example.invalid.items()
               for v in (values if isinstance(values, list) else [values])]
    r = client.post(submit_url, _form(invalid), HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and b"invalid" in r.content and not Annotation.objects.exists()
    r = client.post(submit_url, _form(example.form), HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and Annotation.objects.count() == 1

    # The API: the same, as JSON; a repeat is answered with the stored annotation.
    api_worker = APIClient()
    api_worker.force_authenticate(api_user)
    nxt = api_worker.post(f"/api/projects/{project.slug}/assignments/next/").json()
    assert nxt["assignment"]["item"]["payload"] and "variant" in nxt
    # The item reaches the worker as the type lets this worker's variant see it.
    held = Assignment.objects.get(pk=nxt["assignment"]["id"]).item
    shown = task.worker_payload(held.payload, options=task.clean_options(project.options), variant=nxt["variant"])
    # ... with its options in the order drawn from the assignment's id, which the assignment stores.
    opened = Assignment.objects.get(pk=nxt["assignment"]["id"])
    drawn = order_for(parts=task.order_parts(held.payload), keep_import_order=False,
                      seed=assignment_seed(item_id=opened.item_id, worker_id=opened.worker_id))
    assert nxt["assignment"]["shown_order"] == drawn
    assert Assignment.objects.get(pk=nxt["assignment"]["id"]).shown_order == drawn
    if drawn is not None:
        shown = task.apply_order(shown, drawn)
    assert nxt["assignment"]["item"]["payload"] == json.loads(json.dumps(shown))
    url = f"/api/assignments/{nxt['assignment']['id']}/submit/"
    r = api_worker.post(url, example.invalid, format="json")
    assert r.status_code == 400 and example.invalid_field in r.json()
    r = api_worker.post(url, example.answer, format="json")
    assert r.status_code == 201, r.content
    assert api_worker.post(url, example.answer, format="json").status_code == 200
    assert Annotation.objects.count() == 2

    # The long frame: rows with the common columns (and the option of set-valued answers).
    frame = annotation_frame(project=project).frame
    assert {"item", "worker", "label"} <= set(frame.columns) and frame["worker"].nunique() == 2
    if task.level == "set":
        assert "option" in frame.columns and set(frame["label"]) <= {0, 1}

    # Agreement over every level.
    result = get_report("agreement").run(report_input(project=project, frame=frame), get_report("agreement").clean_params({"n_boot": 20}),
                                         lambda *_: None)
    assert result["figures"]["n_annotations"] == len(frame) and result["figures"]["n_workers"] == 2
    assert result["level"] == task.level and (result["sets"] is not None) == (task.level == "set")
    if task.level == "set":
        options = result["sets"]["options"]
        assert options and all(o["text"] for o in options), "set-valued types name their options"

    # Export: the type's columns, one row per annotation.
    client.force_login(admin)
    r = client.get(f"/projects/{project.slug}/export/annotations.csv")
    rows = list(csv.DictReader(io.StringIO(b"".join(r.streaming_content).decode())))
    assert r.status_code == 200 and len(rows) == 2 and list(rows[0]) == export_columns(project)

    # Pages: the staff preview (the admin is no member), the overview, the admin page with the
    # type's option fields, and every report's page before and after its run.
    preview = client.get(f"/projects/{project.slug}/annotate/")
    assert preview.status_code == 200 and b'data-testid="preview"' in preview.content
    assert client.get(f"/projects/{project.slug}/overview/").status_code == 200
    change = client.get(f"/admin/annotation/project/{project.pk}/change/").content.decode()
    assert all(f'name="option_{name}"' in change for name in task.option_defaults())
    for kind, _ in report_kinds(slug):
        page = page_url(get_report(kind).page_key, project.slug)
        assert client.get(page).status_code == 200, page
        run = analysis_run_execute(run_id=analysis_run_create(project=project, kind=kind, enqueue=False).pk)
        assert run.status == "done", run.error
        shown = client.get(page)
        assert shown.status_code == 200, page
        if kind == "agreement" and task.level == "set":
            text = shown.content.decode()
            assert "Whole answers and options" in text and "MASI distance" in text
        report = get_report(kind)
        if report.page is None:  # the generic page serves the report's figures and files
            for name in report.figures:
                url = reverse("report-figure", kwargs={"slug": project.slug, "kind": kind, "run_id": run.pk, "name": name})
                assert client.get(url).status_code == 200, url
            for name in report.files:
                url = reverse("report-file", kwargs={"slug": project.slug, "kind": kind, "run_id": run.pk, "name": name})
                assert client.get(url).status_code == 200, url

    # The type's own pages: its admin tools for adding items, and every page of its URLconf that
    # takes only the project.
    for url_name, _ in task.item_tools:
        assert client.get(reverse(url_name, args=[project.pk])).status_code == 200, url_name
    for pattern in type_pages(task):
        url = reverse(pattern.name, kwargs={"slug": project.slug})
        assert client.get(url).status_code == 200, url


def _wrong(task, payload, expected: dict) -> dict:
    """An answer to a gold item that differs from ``expected`` on every gold field."""
    wrong = {}
    for name in task.gold_fields:
        kind = next(f.kind for f in task.answer_fields if f.name == name)
        allowed = [c for c in (task.gold_choices(payload, name) or [v for v, _ in task.categories]) if c != "none"]
        if kind == "choices":
            wrong[name] = ["none"] if expected[name] != ["none"] else allowed[:1]
        else:
            wrong[name] = next(c for c in allowed if c != expected[name])
    return wrong


def _gold_path(slug, client, monkeypatch) -> tuple[Item, object]:
    """A gold question of every type: imported with its answer, served like a real item (web and
    API), scored right and wrong by the type. Returns the gold item and the project."""
    task = get_task_type(slug)
    if not task.gold_fields:
        pytest.skip(f"the {task.name} task type declares no gold fields, so it has no gold questions")
    example = task.example()
    project = ProjectFactory(task_type=slug, redundancy=2, options=task.clean_options(example.options))
    admin = APIClient()
    admin.force_authenticate(UserFactory(role="admin"))
    upload = SimpleUploadedFile("items.json", json.dumps(example.records).encode())
    assert admin.post(f"/api/projects/{project.slug}/items/import/", {"file": upload}, format="multipart").status_code == 201
    gold_item = Item.objects.filter(project=project).order_by("position", "pk").first()
    expected = {name: example.answer[name] for name in task.gold_fields}
    clean = task.clean_gold(expected, payload=gold_item.payload)
    Item.objects.filter(pk=gold_item.pk).update(kind=ItemKind.GOLD, redundancy=CHECK_ITEM_REDUNDANCY)
    GoldAnswer.objects.create(item=gold_item, answer=clean.answer, explanation="The known answer's reason.")
    QualityPolicy.objects.create(project=project, gold_rate=0.5, gold_feedback=True, rubric="exact")
    monkeypatch.setattr(check_serving, "draw", lambda: 0.0)
    right_data = {**example.answer}
    wrong_data = {**example.answer, **_wrong(task, gold_item.payload, clean.answer)}

    # The web: the gold question's page holds neither its answer's record nor its explanation.
    web_worker, api_user = UserFactory(), UserFactory()
    client.force_login(web_worker)
    page = client.get(f"/projects/{project.slug}/annotate/")
    assert page.context["assignment"].item_id == gold_item.pk
    assert b"The known answer" not in page.content and b"gold" not in page.content.lower()
    r = client.post(page.content.decode().split('hx-post="')[1].split('"')[0], _form(example.form),
                    HTTP_HX_REQUEST="true")
    assert r.status_code == 200 and b"The known answer&#x27;s reason." in r.content

    # The API: the same item, answered wrong, scored 0 (or below the pass mark) with feedback.
    api_worker = APIClient()
    api_worker.force_authenticate(api_user)
    nxt = api_worker.post(f"/api/projects/{project.slug}/assignments/next/").json()
    assert "gold" not in json.dumps(nxt).lower() and "training" not in nxt
    sent = api_worker.post(f"/api/assignments/{nxt['assignment']['id']}/submit/", wrong_data, format="json")
    assert sent.status_code == 201, sent.content
    assert sent.json()["feedback"]["right"] is False and sent.json()["feedback"]["expected"] == clean.answer

    results = {c.worker_id: c for c in CheckResult.objects.filter(project=project)}
    assert results[web_worker.pk].right and results[web_worker.pk].score == 1.0
    assert not results[api_user.pk].right and results[api_user.pk].score < 1.0
    assert all(c.purpose == Purpose.GOLD and c.expected == clean.answer for c in results.values())
    assert right_data != wrong_data
    return gold_item, project


@pytest.mark.parametrize("slug", SLUGS)
def test_gold_path(slug, client, monkeypatch):
    _gold_path(slug, client, monkeypatch)


@pytest.mark.parametrize("slug", SLUGS)
def test_gold_answers_are_no_annotations_of_their_item(slug, client, monkeypatch):
    gold_item, project = _gold_path(slug, client, monkeypatch)
    frame = annotation_frame(project=project).frame
    assert not {str(gold_item.pk), gold_item.external_id} & set(frame["item"].astype(str))


def type_pages(task) -> list[URLPattern]:
    """The pages of a type's URLconf that take the project's slug and nothing else (its API
    operations, named ``api-…``, are not pages: some take only POST)."""
    if not task.urls:
        return []
    patterns = import_module(task.urls).urlpatterns
    return [p for p in patterns if isinstance(p, URLPattern) and set(p.pattern.converters) == {"slug"}
            and not (p.name or "").startswith("api-")]


@pytest.mark.parametrize("slug", SLUGS)
def test_a_type_declares_its_pages_and_commands(slug):
    """What a type's app provides is what the type declares: every command of the app (and only
    those) in ``commands``, each one installed and with a parser; its URLconf mounted."""
    task = get_task_type(slug)
    app = apps.get_containing_app_config(type(task).__module__)
    installed = get_commands()
    assert sorted(name for name, owner in installed.items() if owner == app.name) == sorted(task.commands)
    for name in task.commands:
        parser = load_command_class(app.name, name).create_parser("manage.py", name)
        assert parser.format_help().startswith("usage: manage.py " + name)
    if task.urls:
        patterns = import_module(task.urls).urlpatterns
        assert patterns and all(p.name for p in patterns), "every page of a type has a name"


def _form(fields) -> dict[str, list[str]]:
    form: dict[str, list[str]] = {}
    for name, value in fields:
        form.setdefault(name, []).append(value)
    return form


def test_the_api_describes_every_type_with_its_example():
    client = APIClient()
    client.force_authenticate(UserFactory())
    body = client.get("/api/task-types/").json()
    assert [t["slug"] for t in body] == SLUGS
    for doc in body:
        task = get_task_type(doc["slug"])
        assert [f["name"] for f in doc["answer_fields"]] == [f.name for f in task.answer_fields]
        assert doc["example"]["answer"] == task.example().answer and doc["options"] == task.option_defaults()
    assert APIClient().get("/api/task-types/").status_code in (401, 403)


def test_worker_payload_defaults_to_the_whole_payload():
    from annotation.task_types.base import TaskType

    class Plain(TaskType):
        slug, name, template = "plain-test", "Plain", "x.html"

        def clean_item(self, record):
            raise NotImplementedError

        def clean_answer(self, data, *, payload, context=NO_CONTEXT):
            raise NotImplementedError

        def example(self):
            raise NotImplementedError

        def long_rows(self, *, payload, answer):
            return []

        def export_row(self, ctx, answer, reason):
            return {}

    payload = {"text": "all of it", "nested": {"a": 1}}
    assert Plain().worker_payload(payload, options={}, variant="") == payload
