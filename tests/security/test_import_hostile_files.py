"""Every importer of the platform, reached from the web or from the command line, meets the same
hostile files: a raw NUL byte, UTF-16 with its byte-order mark, a field over 128 KB, a file past
the import limit, quoting left open, a wrong header. Each is refused with an error that names the
row (and, for a bad value, the field), or, for UTF-16, read in its encoding; never an unexpected
exception (a 500 from the web), never half-written.

The importers are one list (``IMPORTERS``) built from the task-type registry and the project's
commands and upload routes; ``test_every_importer_is_in_the_list`` walks the URLconf and fails
when a command that reads files or a route whose view takes an upload is added without a line
here. Web imports run as jobs:
``test_web_imports_of_files_run_as_jobs`` holds the admin pages to it.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from django import forms
from django.apps import apps
from django.core.management import get_commands, load_command_class

from annotation.models import Annotation, ImportJob, Item, MediaFile, WorkerProfile
from annotation.task_types import get_task_type, task_types
from task_types.pairwise.models import Argument, Topic
from tests.factories import ProjectFactory, UserFactory
from tests.support.hostile_importers import (
    FIELD,
    HOSTILE,
    IMPORTERS,
    KPA_ARGUMENTS,
    KPA_KEY_POINTS,
    MARK,
    PREDICTIONS,
    ROW,
    SMALL_LIMIT,
    Ctx,
    Refused,
    T,
    _item_file,
    _upload,
    items_command,
)

pytestmark = pytest.mark.django_db



def _snapshot() -> dict[str, int]:
    from task_types.key_points.models import PredictionEvaluation

    counted = (Item, Annotation, WorkerProfile, MediaFile, Topic, Argument)
    counts = {model.__name__: model.objects.count() for model in counted}
    counts["evaluations done"] = PredictionEvaluation.objects.filter(status="done").count()
    return counts


@pytest.fixture
def ctx(client, settings, tmp_path, django_capture_on_commit_callbacks):
    user = UserFactory(role="admin", is_superuser=True, is_staff=True)
    client.force_login(user)
    return Ctx(client=client, user=user, tmp=tmp_path, settings=settings, capture=django_capture_on_commit_callbacks)


@pytest.mark.parametrize("hostile", list(HOSTILE))
@pytest.mark.parametrize("importer", IMPORTERS, ids=[i.name for i in IMPORTERS])
def test_a_hostile_file_is_refused_by_row_and_field_and_nothing_is_written(ctx, importer, hostile, monkeypatch):
    ctx.project = ProjectFactory(task_type=importer.task_type, redundancy=3)
    importer.setup(ctx)
    if hostile == "big_file":
        # The file is just past the limit: the upload's (web) or the import's (everywhere).
        ctx.settings.IMPORT_MAX_DECOMPRESSED_BYTES = SMALL_LIMIT
        ctx.settings.UPLOAD_MAX_BYTES = SMALL_LIMIT
        if importer.size_limit is not None:
            monkeypatch.setattr(*importer.size_limit, SMALL_LIMIT)
    files = {name: text.encode() for name, text in importer.files.items()}
    files[importer.target] = HOSTILE[hostile](importer.files[importer.target], importer.fmt)
    before = _snapshot()
    try:
        importer.run(ctx, files)
    except Refused as exc:
        message = str(exc)
    else:
        # Only a UTF-16 file may be imported: it is read in its encoding.
        assert hostile == "utf16", f"{importer.name} accepted a file with {hostile}"
        return
    assert _snapshot() == before, f"{importer.name} wrote part of a refused file"
    if hostile == "utf16":
        assert "UTF" in message, message
    elif hostile == "big_file":
        assert re.search(r"larger than|too large|at most|more than the [^.]* limit", message), message
    else:
        assert ROW.search(message) or "missing column" in message or "lacks the column" in message \
            or "expected a JSON object" in message, message
    if hostile in ("nul", "long_field") and importer.fmt != "json":
        assert FIELD.search(message), message


@pytest.mark.parametrize("importer", IMPORTERS, ids=[i.name for i in IMPORTERS])
def test_the_valid_file_of_each_importer_is_accepted(ctx, importer):
    """The hostile files are made from these: each is accepted as it is, so a refusal above is
    the hostile part's doing."""
    ctx.project = ProjectFactory(task_type=importer.task_type, redundancy=3)
    importer.setup(ctx)
    importer.run(ctx, {name: text.encode() for name, text in importer.files.items()})


def test_a_utf16_file_with_its_bom_imports_like_its_utf8_twin(ctx):
    ctx.project = ProjectFactory(task_type="pairwise")
    name, text = _item_file("pairwise")
    items_command(ctx, {name: text.encode("utf-16")})
    assert ctx.project.items.count() == len(get_task_type("pairwise").example().records)
    assert MARK in ctx.project.items.order_by("pk").first().payload["arg1"]["text"] + \
        ctx.project.items.order_by("pk").first().payload["arg2"]["text"]


def test_a_49_mb_arguments_file_is_queued_not_imported_in_the_request(ctx, monkeypatch):
    """The admin page answers at once: the upload is stored and a job queued (its worker, not
    the request, parses the file)."""
    from annotation.services import imports

    ctx.project = ProjectFactory(task_type="key_points")
    sent: list[int] = []
    monkeypatch.setattr(imports, "_send", sent.append)
    row = "arg_{n},an argument that is about as long as the ones of the shared task for the test,{t},1\n"
    body = "".join(row.format(n=n, t=T) for n in range(520_000))
    arguments = ("arg_id,argument,topic,stance\n" + body).encode()
    assert len(arguments) > 49 * 2**20
    with ctx.capture(execute=True):
        response = ctx.client.post(f"/admin/annotation/project/{ctx.project.pk}/key-points/", {
            "arguments": _upload("arguments.csv", arguments),
            "key_points": _upload("key_points.csv", KPA_KEY_POINTS.encode())})
    job = ImportJob.objects.get()
    assert response.status_code == 302 and response["Location"].endswith(f"/imports/{job.pk}/")
    assert sent == [job.pk] and job.status == ImportJob.Status.QUEUED and job.size == len(arguments) + len(
        KPA_KEY_POINTS)
    assert ctx.project.items.count() == 0


# --- the list is complete ----------------------------------------------------------------------

# Commands that take a file or folder but import nothing (they write files, or read only).
NOT_IMPORTERS = {"export_annotations", "load_demo", "serve", "analyze", "generate_pairs"}
# Every route whose view takes an upload (found in the URLconf by ``_upload_routes``), by its
# URL name: the importer of IMPORTERS that drives it (its name or the start of its names) ...
UPLOAD_ROUTES = {
    "annotation_project_import": "items-admin", "api-items-import": "items-api",
    "annotation_project_crowd": "crowd-admin", "api-crowd-import": "crowd-api",
    "annotation_project_key_points": "key-points-files-admin", "api-key-points-import": "key-points-files-api",
    "annotation_project_key_points_track2": "track2-admin", "api-key-points-track2": "track2-build-api",
    "annotation_project_key_point_sets": "key-point-sets-admin", "api-key-point-sets-build": "key-point-sets-api",
    "key-points-evaluations": "predictions-web", "api-key-points-evaluations": "predictions-api",
    "annotation_project_media": "media-admin", "api-media": "media-api",
}
# ... or the reason it is not an importer.
NOT_IMPORT_ROUTES = {
    "api-counter-speech-build": "builds questions from the shared data; its form has no file field",
    # Multipart is one more way to send their few form fields; no file is read.
    "api-submit": "an answer's fields (the answer endpoints' body limits: test_api_request_bodies.py)",
    "api-annotation": "an answer's fields (the answer endpoints' body limits: test_api_request_bodies.py)",
    "api-flag": "a flag's problem and reason",
    "api-flag-withdraw": "a note for the audit log",
    "api-flag-dismiss": "a note for the audit log",
    "api-flag-withdraw-undo": "a note for the audit log",
}


def _code_names(code) -> Iterator[str]:
    yield from code.co_names
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            yield from _code_names(const)


def _reached(func, depth: int = 2) -> Iterator[object]:
    """The objects a view function names (globals, closures), and those of the project's
    functions it names in turn, ``depth`` calls deep."""
    func = inspect.unwrap(func)
    while isinstance(func, functools.partial):
        func = func.func
    func = getattr(func, "__func__", func)
    code = getattr(func, "__code__", None)
    # Django's own views (the admin's add and change pages) are not the project's importers;
    # the one model with a file, MediaFile, cannot be added or changed there.
    if code is None or not func.__module__.startswith(PROJECT):
        return
    for cell in func.__closure__ or ():
        yield cell.cell_contents
    found = [func.__globals__.get(name) for name in _code_names(code)]
    for obj in found:
        yield obj
        if depth and inspect.isfunction(obj) and obj.__module__.startswith(PROJECT):
            yield from _reached(obj, depth - 1)
    if "FILES" in code.co_names and depth == 2:
        yield "request.FILES"  # the view reads the uploaded files itself


PROJECT = ("annotation.", "task_types.", "analysis.", "quality.", "jobs.")


def _has_file_field(obj: object) -> bool:
    from rest_framework import serializers

    if not (isinstance(obj, type) and issubclass(obj, forms.BaseForm | serializers.BaseSerializer)):
        return False
    declared = getattr(obj, "base_fields", None) or getattr(obj, "_declared_fields", {})
    return any(isinstance(f, forms.FileField | serializers.FileField) for f in declared.values())


def _upload_routes() -> dict[str, set[str]]:
    """{URL name: the upload forms it reaches} of every route whose view takes an upload: a form
    or serializer with a file field, a parser of multipart or file bodies that the view sets
    itself, or a read of ``request.FILES``."""
    from rest_framework.parsers import FileUploadParser, MultiPartParser

    from tests.support.url_routes import routes

    found: dict[str, set[str]] = {}
    for route in routes(skip=()):
        cls = route.view_class
        reached: list[object] = []
        if cls is not None and cls.__module__.startswith(PROJECT):
            # Set by the project's classes (every DRF view has the default parsers, multipart too).
            parsers = [p for k in cls.__mro__ if k.__module__.startswith(PROJECT)
                       for p in vars(k).get("parser_classes", ())]
            if any(issubclass(p, MultiPartParser | FileUploadParser) for p in parsers):
                reached.append("parser")
            for klass in cls.__mro__:
                for attr in ("form_class", "serializer_class"):
                    reached.append(vars(klass).get(attr))
                for method in ("get", "post", "put", "patch", "run"):
                    if inspect.isfunction(vars(klass).get(method)):
                        reached.extend(_reached(vars(klass)[method]))
        else:
            reached.extend(_reached(route.callback))
        forms_reached = {o.__name__ for o in reached if _has_file_field(o)}  # type: ignore[attr-defined]
        if forms_reached or "parser" in reached or "request.FILES" in reached:
            found[route.name or route.route] = forms_reached
    return found


def _project_commands() -> dict[str, str]:
    project_apps = {c.name for c in apps.get_app_configs() if not c.name.startswith(("django.", "rest_framework"))
                    and "site-packages" not in str(c.path)}
    return {name: app for name, app in get_commands().items() if app in project_apps}


def _reads_files(app: str, name: str) -> bool:
    from annotation.management.arguments import existing_file

    parser = load_command_class(app, name).create_parser("manage.py", name)
    return any(action.type in (Path, existing_file) or (action.nargs == 3 and "system" in action.dest)
               for action in parser._actions)


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_importer_is_in_the_list():
    names = {i.name for i in IMPORTERS}
    for name, app in _project_commands().items():
        if name in NOT_IMPORTERS or not _reads_files(app, name):
            continue
        assert any(n == name or n.startswith(name + "-") for n in names), f"the command {name} reads files: add it to IMPORTERS (or NOT_IMPORTERS, saying why)"
    found = _upload_routes()
    for route in found:
        assert route in UPLOAD_ROUTES or route in NOT_IMPORT_ROUTES, (
            f"the route {route} takes an upload: add its importer to IMPORTERS and UPLOAD_ROUTES (or the route to "
            "NOT_IMPORT_ROUTES, saying why)")
    # Stale entries, and a search that finds what it must.
    assert set(UPLOAD_ROUTES) | set(NOT_IMPORT_ROUTES) == set(found)
    for route, importer in UPLOAD_ROUTES.items():
        assert any(n == importer or n.startswith(importer + "-") for n in names), (route, importer)
    # Every form of the project that takes a file is reached by some route. (A serializer with a
    # file field may only describe a body in the OpenAPI document; the API's upload routes are
    # found by their parsers.)
    reached = set().union(*found.values())
    for cls in _subclasses(forms.Form):
        if cls.__module__.startswith(PROJECT) and _has_file_field(cls):
            assert cls.__name__ in reached, f"{cls.__module__}.{cls.__name__} takes a file but no route was found to it"


# The files each task type's own imports (TaskType.files_imports) are sent in the job test.
JOB_UPLOADS = {
    ("key_points", "corpus"): {"arguments": ("arguments.csv", KPA_ARGUMENTS), "key_points": ("key_points.csv", KPA_KEY_POINTS)},
    ("key_points", "track2"): {"arguments": ("arguments.csv", KPA_ARGUMENTS), "key_points": ("key_points.csv", KPA_KEY_POINTS),
                               "predictions": ("predictions.json", PREDICTIONS), "system": "sys", "action": "build",
                               "seed": 0, "show": "all", "counts": "topic", "ties": "official"},
    ("counter_speech", "questions"): {"setting": "all", "min_candidates": 2, "max_candidates": 5, "seed": 1},
    ("key_point_sets", "sets"): {"arguments": ("arguments.csv", KPA_ARGUMENTS), "seed": 0, "min_score": 0, "counts": "topic",
                                 **{f"name_{n}": f"s{n}" for n in (1, 2)},
                                 **{f"key_points_{n}": ("key_points.csv", KPA_KEY_POINTS) for n in (1, 2)},
                                 **{f"predictions_{n}": ("predictions.json", PREDICTIONS) for n in (1, 2)}},
}


def test_web_imports_of_files_run_as_jobs(ctx, monkeypatch):
    """Every import of a task type's own files (from the registry) is queued as an import job
    (here: one no worker takes) by its admin page, which redirects to the job's page; nothing is
    written by the request, whatever the files' size."""
    from django.urls import reverse

    from annotation.services import imports

    monkeypatch.setattr(imports, "_send", lambda pk: None)
    declared = {(task.slug, name): spec for task in task_types() for name, spec in task.files_imports().items()}
    assert set(declared) == set(JOB_UPLOADS), "add the files of each task type's own import to JOB_UPLOADS"
    for (slug, name), spec in declared.items():
        ctx.project = ProjectFactory(task_type=slug)
        sent = {k: _upload(v[0], v[1].encode()) if isinstance(v, tuple) else v for k, v in JOB_UPLOADS[(slug, name)].items()}
        assert {k for k, v in JOB_UPLOADS[(slug, name)].items() if isinstance(v, tuple)} <= set(spec.files)
        with ctx.capture(execute=True):
            response = ctx.client.post(reverse(spec.page, args=[ctx.project.pk]), sent)
        job = ImportJob.objects.filter(project=ctx.project).get()
        assert response.status_code == 302 and response["Location"].endswith(f"/imports/{job.pk}/"), (slug, name)
        assert job.kind == ImportJob.Kind.FILES and job.options["import"] == name
        assert job.status == ImportJob.Status.QUEUED and ctx.project.items.count() == 0
