"""Every importer of the platform, reached from the web or from the command line, meets the same
hostile files: a raw NUL byte, UTF-16 with its byte-order mark, a field over 128 KB, a file past
the import limit, quoting left open, a wrong header. Each is refused with an error that names the
row (and, for a bad value, the field), or, for UTF-16, read in its encoding; never an unexpected
exception (a 500 from the web), never half-written.

The importers are one list (``IMPORTERS``) built from the task-type registry and the project's
commands and upload forms; ``test_every_importer_is_in_the_list`` fails when a command that reads
files or a form that uploads one is added without a line here. Web imports run as jobs:
``test_web_imports_of_files_run_as_jobs`` holds the admin pages to it.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import html
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django import forms
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command, get_commands, load_command_class
from django.core.management.base import CommandError
from django.urls import get_resolver

from annotation.models import Annotation, ImportJob, Item, MediaFile, WorkerProfile
from annotation.task_types import get_task_type, task_types
from task_types.pairwise.models import Argument, Topic
from tests.factories import ProjectFactory, UserFactory
from tests.support import audio

pytestmark = pytest.mark.django_db

MARK = "MARK"
# A field longer than the csv module's own limit (131,072 characters).
LONG = 140_000
# The import limit the "big file" case sets, and the file it sends (just past it).
SMALL_LIMIT = 8 * 1024
# A row: its line (record) in a file, or the argument it is about in a predictions file.
ROW = re.compile(r"\b(line|record|row) \d+|argument '")
FIELD = re.compile(r"field '[^']+'|column|key point|argument '")


class Refused(Exception):
    """An importer's clear refusal (its message is what the user reads)."""


@dataclass
class Ctx:
    client: Any
    user: Any
    tmp: Path
    settings: Any
    capture: Any
    project: Any = None


@dataclass(frozen=True)
class Importer:
    name: str
    # The files it reads (name → valid text); ``target`` is the one made hostile, whose text
    # holds MARK once, in a text field of its first row.
    files: dict[str, str]
    target: str
    run: Callable[[Ctx, dict[str, bytes]], None]
    task_type: str = "pairwise"
    setup: Callable[[Ctx], None] = lambda ctx: None
    web: bool = False
    # The setting or module constant that bounds the file's size, when not the import limit.
    size_limit: tuple[Any, str] | None = None

    @property
    def fmt(self) -> str:
        return Path(self.target).suffix.lstrip(".")


# --- the hostile files -------------------------------------------------------------------------


def _header_renamed(text: str, fmt: str) -> str:
    if fmt in ("csv", "tsv"):
        head, _, rest = text.partition("\n")
        sep = "\t" if fmt == "tsv" else ","
        return sep.join(f"{c}_x" for c in head.split(sep)) + "\n" + rest
    if fmt == "jsonl":
        return "".join(json.dumps({f"{k}_x": v for k, v in json.loads(line).items()}) + "\n"
                       for line in text.splitlines() if line.strip())
    return json.dumps([json.loads(text)])  # a predictions file: a list where an object belongs


def _open_quote(text: str, fmt: str) -> str:
    head, _, rest = text.partition("\n")
    if fmt in ("csv", "tsv"):
        return head + "\n\"" + rest
    if fmt == "jsonl":
        return head + "\n{\"id\": \"unclosed\n" + rest
    return text[:-2]


HOSTILE: dict[str, Callable[[str, str], bytes]] = {
    "nul": lambda text, fmt: text.replace(MARK, "MA\x00RK").encode(),
    "utf16": lambda text, fmt: text.encode("utf-16"),
    "long_field": lambda text, fmt: text.replace(MARK, "x" * LONG).encode(),
    "big_file": lambda text, fmt: (text + "\n" * (SMALL_LIMIT + 1)).encode(),
    "open_quote": lambda text, fmt: _open_quote(text, fmt).encode(),
    "wrong_header": lambda text, fmt: _header_renamed(text, fmt).encode(),
}


# --- the importers' valid files ----------------------------------------------------------------


def _marked(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with MARK put at the start of the first record's longest text."""
    first = json.loads(json.dumps(records[0]))
    best: tuple[int, Any, Any] = (-1, None, None)
    stack: list[Any] = [first]
    while stack:
        node = stack.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
        for key, value in pairs:
            if isinstance(value, str) and " " in value and len(value) > best[0]:
                best = (len(value), node, key)
            elif isinstance(value, dict | list):
                stack.append(value)
    _, node, key = best
    node[key] = f"{MARK} {node[key]}"
    return [first, *records[1:]]


def _item_file(slug: str) -> tuple[str, str]:
    """A valid import file of a type's example records: CSV where the type reads flat rows,
    JSON lines where its records nest (a speech, a list of candidates)."""
    records = _marked(get_task_type(slug).example().records)
    if slug in ("comprehension", "counter_speech"):
        return "items.jsonl", "".join(json.dumps(r) + "\n" for r in records)
    columns = list(dict.fromkeys(k for r in records for k in r))
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    for r in records:
        writer.writerow({k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in r.items()})
    return "items.csv", out.getvalue()


UKP_ARGUMENTS = ("arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"
                 f"x1\tuni_good\tUniforms?\tGood\ta\t{MARK} Uniforms are cheap.\n"
                 "x2\tuni_good\tUniforms?\tGood\tb\tUniforms stop bullying.\n")
CROWD = ("topic\tpair_id\targ1\targ2\tworker\thit\tassignment\tlabel\treason\taccepted_at\tsubmitted_at\tworker_stance\n"
         f"uni_good\tx1_x2\tx1\tx2\tW1\tH1\tA1\ta1\t{MARK} A1 is short and clear\t2016-01-31 16:53:19.0 UTC\t"
         "2016-01-31 16:59:52.0 UTC\t\n")
T = "We should ban boxing"
KPA_ARGUMENTS = ("arg_id,argument,topic,stance\n"
                 f"p1,{MARK} boxing damages the brain,{T},1\np2,boxers get hurt,{T},1\n"
                 f"c1,adults may choose,{T},-1\nc2,it gives discipline,{T},-1\n")
KPA_KEY_POINTS = ("key_point_id,key_point,topic,stance\n"
                  f"kp0,Boxing harms health,{T},1\nkp1,Boxing is violent,{T},1\nkp2,A bad example,{T},1\n"
                  f"kc0,Freedom of choice,{T},-1\nkc1,Discipline,{T},-1\nkc2,Fitness,{T},-1\n")
KPA_LABELS = "arg_id,key_point_id,label\np1,kp0,1\np2,kp1,0\nc1,kc0,1\nc2,kc1,1\n"
PREDICTIONS = json.dumps({"p1": {"kp0": 0.9, "kp1": 0.2}, "p2": {"kp0": 0.8, "kp1": 0.1},
                          "c1": {"kc0": 0.4, "kc1": 0.3}, f"c2 {MARK}": {"kc1": 0.7}})
PROMPTS = "prompt_id,type,text\nq1,narration,Do you agree that school uniforms help?\n"
REFERENCES = "prompt_id,reference_id,text\nq1,r1,A model answer about uniforms.\n"
RESPONSES = ("response_id,prompt_id,speaker,audio,asr_transcript,transcript\n"
             f"s1,q1,sp1,,,{MARK} I think uniforms help because they are cheap.\n")
MANIFEST = f"key,file\nspeech_1.wav,a {MARK}.wav\n"
IBM_TRANSCRIPTS = ("speech-id,motion-id,speech-to-motion-polarity,speaker-name,responds-to-speaker-name,speech-text\n"
                   f"s1,m1,PRO,Ann,,{MARK} We should ban boxing. It harms the brain.\n"
                   "s2,m1,PRO,Bob,,Boxing is violent and children copy it.\n"
                   "s3,m1,CON,Cid,Ann,Adults may choose. Boxing teaches discipline.\n")
COMPREHENSION_SPEECHES = ("id,motion_id,motion,speaker,stance,transcript\n"
                          f"s1,m1,We should ban boxing,Ann,pro,{MARK} Boxing harms the brain. It is violent.\n")
COMPREHENSION_TITLES = "id,motion_id,stance,title,text\nt1,m1,pro,Boxing harms health,It damages the brain.\n"
IBM_MATCHING = ("motion-id,motion-text,speech-id,idebate-point-id,claim-text,sentence-index,sentence-text,"
                "positive-count,negative-count,is-claim-mentioned-in-sentence\n"
                "m1,We should ban boxing,s1,p1,Boxing harms health,0,x,1,0,true\n")


# --- how each importer is reached --------------------------------------------------------------


def _write(ctx: Ctx, files: dict[str, bytes], folder: str = "in") -> Path:
    where = ctx.tmp / folder
    where.mkdir(exist_ok=True)
    for name, data in files.items():
        (where / name).write_bytes(data)
    return where


def _command(*args: Any) -> None:
    try:
        call_command(*[str(a) for a in args], stdout=io.StringIO(), stderr=io.StringIO())
    except CommandError as exc:
        raise Refused(str(exc)) from None


def _error_lines(errors: list[dict[str, Any]]) -> list[str]:
    """Stored or answered row errors in words, as the job's page writes them."""
    lines = []
    for e in errors:
        where = e.get("where") or " ".join(f"{k} {e[k]}" for k in ("line", "record", "pair") if k in e) or "file"
        lines.append(f"{where}, field '{e['field']}': {e['message']}" if e.get("field") else f"{where}: {e['message']}")
    return lines


def _job_outcome(ctx: Ctx) -> None:
    job = ImportJob.objects.order_by("-pk").first()
    assert job is not None and job.is_finished, job
    page = ctx.client.get(f"/admin/annotation/project/{job.project_id}/imports/{job.pk}/")
    assert page.status_code == 200
    if job.status != ImportJob.Status.DONE:
        raise Refused("\n".join([job.error, *_error_lines(job.errors)]))


def _page_errors(response) -> None:
    """An in-request page: 302 is success; 200 shows the refusal."""
    assert response.status_code in (200, 302), response.status_code
    if response.status_code == 200:
        page = response.content.decode()
        # The refusal: from the first error box of the page to the end of its content.
        found = re.search(r'class="[^"]*(?:errorlist|errornote)[^"]*".*?(?:</form>|<!-- END Content -->)', page, flags=re.S)
        assert found, "the page neither redirected nor showed an error"
        raise Refused(html.unescape(re.sub(r"<[^>]+>", " ", found.group(0))))


def _upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def _post_job(ctx: Ctx, url: str, data: dict[str, Any]) -> None:
    before = ImportJob.objects.count()
    with ctx.capture(execute=True):
        response = ctx.client.post(url, data)
    if ImportJob.objects.count() == before:
        _page_errors(response)  # refused before any job (a file past the upload limit)
        return
    assert response.status_code == 302, response.status_code
    _job_outcome(ctx)


def items_admin(ctx: Ctx, files: dict[str, bytes]) -> None:
    ctx.settings.IMPORT_INLINE_MAX_BYTES = 0  # every size as a job
    ((name, data),) = files.items()
    _post_job(ctx, f"/admin/annotation/project/{ctx.project.pk}/import/",
              {"file": _upload(name, data), "on_duplicate": "reject"})


def items_api(ctx: Ctx, files: dict[str, bytes]) -> None:
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(ctx.user)
    ((name, data),) = files.items()
    with ctx.capture(execute=True):
        response = client.post(f"/api/projects/{ctx.project.slug}/items/import/", {"file": _upload(name, data)},
                               format="multipart")
    assert response.status_code in (200, 201, 202, 400), response.status_code
    if response.status_code == 400:
        body = response.json()
        raise Refused("\n".join([body.get("detail", ""), *_error_lines(body.get("errors", [])), json.dumps(body)]))
    if response.status_code == 202:
        _job_outcome(ctx)


def items_command(ctx: Ctx, files: dict[str, bytes]) -> None:
    folder = _write(ctx, files)
    _command("import_items", ctx.project.slug, folder / next(iter(files)))


def _pairwise_corpus(ctx: Ctx) -> None:
    from task_types.pairwise.arguments_file import parse_arguments
    from task_types.pairwise.corpus import arguments_import

    arguments_import(rows=parse_arguments(UKP_ARGUMENTS.replace(MARK + " ", "").encode()))


def crowd_admin(ctx: Ctx, files: dict[str, bytes]) -> None:
    ctx.settings.IMPORT_INLINE_MAX_BYTES = 0
    _post_job(ctx, f"/admin/annotation/project/{ctx.project.pk}/crowd/",
              {"file": _upload("results.tsv", files["results.tsv"]), "source": "mturk"})


def crowd_command(ctx: Ctx, files: dict[str, bytes]) -> None:
    folder = _write(ctx, files)
    _command("import_crowd", ctx.project.slug, folder / "results.tsv")


def key_points_admin(ctx: Ctx, files: dict[str, bytes]) -> None:
    _post_job(ctx, f"/admin/annotation/project/{ctx.project.pk}/key-points/",
              {key.removesuffix(".csv"): _upload(key, data) for key, data in files.items()})


def key_points_command(ctx: Ctx, files: dict[str, bytes]) -> None:
    _command("import_key_points", ctx.project.slug, _write(ctx, files))


def arguments_command(ctx: Ctx, files: dict[str, bytes]) -> None:
    _command("import_arguments", _write(ctx, files) / "arguments.tsv")


def reproduce_command(ctx: Ctx, files: dict[str, bytes]) -> None:
    folder = _write(ctx, files)
    (folder / "assignments.tsv.gz").write_bytes(gzip.compress(CROWD.replace(MARK + " ", "").encode()))
    _command("reproduce_ukpconvarg", folder, "--project", "ukp-hostile")


def responses_command(ctx: Ctx, files: dict[str, bytes]) -> None:
    _command("import_responses", ctx.project.slug, _write(ctx, files))


def _track2_files(files: dict[str, bytes]) -> dict[str, bytes]:
    return {"arguments.csv": files["arguments.csv"], "key_points.csv": KPA_KEY_POINTS.encode(),
            "predictions.json": PREDICTIONS.replace(f" {MARK}", "").encode()}


def track2_admin(ctx: Ctx, files: dict[str, bytes]) -> None:
    sent = _track2_files(files)
    _post_job(ctx, f"/admin/annotation/project/{ctx.project.pk}/key-points-track2/", {
        "arguments": _upload("arguments.csv", sent["arguments.csv"]),
        "key_points": _upload("key_points.csv", sent["key_points.csv"]),
        "predictions": _upload("predictions.json", sent["predictions.json"]),
        "system": "sys", "action": "build", "seed": 0, "show": "all", "counts": "topic", "ties": "official"})


def track2_command(ctx: Ctx, files: dict[str, bytes], command: str = "track2_build") -> None:
    folder = _write(ctx, _track2_files(files))
    _command(command, ctx.project.slug, "--arguments", folder / "arguments.csv", "--key-points",
             folder / "key_points.csv", "--predictions", folder / "predictions.json", "--system", "sys")


def key_point_sets_admin(ctx: Ctx, files: dict[str, bytes]) -> None:
    sent = _track2_files(files)
    _post_job(ctx, f"/admin/annotation/project/{ctx.project.pk}/key-point-sets/", {
        "arguments": _upload("arguments.csv", sent["arguments.csv"]),
        **{f"name_{n}": f"s{n}" for n in (1, 2)},
        **{f"key_points_{n}": _upload("key_points.csv", sent["key_points.csv"]) for n in (1, 2)},
        **{f"predictions_{n}": _upload("predictions.json", sent["predictions.json"]) for n in (1, 2)},
        "seed": 0, "min_score": 0, "counts": "topic"})


def key_point_sets_command(ctx: Ctx, files: dict[str, bytes]) -> None:
    folder = _write(ctx, _track2_files(files))
    args = ["--system", "s1", folder / "key_points.csv", folder / "predictions.json",
            "--system", "s2", folder / "key_points.csv", folder / "predictions.json"]
    _command("key_point_sets_build", ctx.project.slug, "--arguments", folder / "arguments.csv", *args)


def _labelled_key_points(ctx: Ctx) -> None:
    from task_types.key_points.corpus import read_corpus
    from task_types.key_points.services import corpus_import

    corpus_import(project=ctx.project, corpus=read_corpus(KPA_ARGUMENTS.replace(MARK + " ", ""),
                                                          KPA_KEY_POINTS, KPA_LABELS))


def _evaluation_outcome() -> None:
    from task_types.key_points.models import PredictionEvaluation

    evaluation = PredictionEvaluation.objects.order_by("-pk").first()
    assert evaluation is not None and evaluation.is_finished
    if evaluation.status != evaluation.Status.DONE:
        raise Refused(evaluation.error)


def predictions_web(ctx: Ctx, files: dict[str, bytes]) -> None:
    ctx.settings.IMPORT_INLINE_MAX_BYTES = 0
    from task_types.key_points.models import PredictionEvaluation

    before = PredictionEvaluation.objects.count()
    with ctx.capture(execute=True):
        response = ctx.client.post(f"/projects/{ctx.project.slug}/key-points/evaluations/",
                                   {"predictions": _upload("predictions.json", files["predictions.json"]),
                                    "ties": "official"})
    if PredictionEvaluation.objects.count() == before:
        _page_errors(response)
        return
    assert response.status_code in (200, 302)
    _evaluation_outcome()


def predictions_command(ctx: Ctx, files: dict[str, bytes]) -> None:
    _command("evaluate_key_points", ctx.project.slug, _write(ctx, files) / "predictions.json")


def counter_speech_command(ctx: Ctx, files: dict[str, bytes]) -> None:
    _command("build_counter_speech", ctx.project.slug, "--ibm", _write(ctx, files), "--min-candidates", "2")


def comprehension_cli(ctx: Ctx, files: dict[str, bytes]) -> None:
    """The tool that writes comprehension questions for the item import, from a corpus."""
    from task_types.comprehension.cli import main

    folder = _write(ctx, files)
    (folder / "titles.csv").write_text(COMPREHENSION_TITLES)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            main(["corpus", str(folder / "speeches.csv"), str(folder / "titles.csv")])
    except SystemExit as exc:
        raise Refused(str(exc)) from None


def media_command(ctx: Ctx, files: dict[str, bytes]) -> None:
    folder = _write(ctx, files)
    (folder / f"a {MARK}.wav").write_bytes(audio.wav())
    _command("import_media", ctx.project.slug, folder)


def _importers() -> Iterator[Importer]:
    for task in task_types():
        name, text = _item_file(task.slug)
        for how, run in (("items-admin", items_admin), ("items-api", items_api), ("import_items", items_command)):
            yield Importer(f"{how}-{task.slug}", {name: text}, name, run, task_type=task.slug,
                           web=how != "import_items")
    crowd = {"results.tsv": CROWD}
    yield Importer("crowd-admin", crowd, "results.tsv", crowd_admin, setup=_pairwise_corpus, web=True)
    yield Importer("import_crowd", crowd, "results.tsv", crowd_command, setup=_pairwise_corpus)
    kpa = {"arguments.csv": KPA_ARGUMENTS, "key_points.csv": KPA_KEY_POINTS, "labels.csv": KPA_LABELS}
    yield Importer("key-points-files-admin", kpa, "arguments.csv", key_points_admin, task_type="key_points",
                   web=True)
    yield Importer("import_key_points", kpa, "arguments.csv", key_points_command, task_type="key_points")
    args = {"arguments.tsv": UKP_ARGUMENTS}
    yield Importer("import_arguments", args, "arguments.tsv", arguments_command)
    yield Importer("reproduce_ukpconvarg", args, "arguments.tsv", reproduce_command)
    yield Importer("import_responses", {"prompts.csv": PROMPTS, "references.csv": REFERENCES,
                                        "responses.csv": RESPONSES}, "responses.csv", responses_command,
                   task_type="response_scoring")
    track2 = {"arguments.csv": KPA_ARGUMENTS}
    yield Importer("track2-admin", track2, "arguments.csv", track2_admin, task_type="key_points", web=True)
    yield Importer("track2_build", track2, "arguments.csv", track2_command, task_type="key_points")
    yield Importer("track2_score", track2, "arguments.csv",
                   lambda ctx, files: track2_command(ctx, files, "track2_score"), task_type="key_points",
                   setup=_labelled_key_points)
    yield Importer("key-point-sets-admin", track2, "arguments.csv", key_point_sets_admin,
                   task_type="key_point_sets", web=True)
    yield Importer("key_point_sets_build", track2, "arguments.csv", key_point_sets_command,
                   task_type="key_point_sets")
    predictions = {"predictions.json": PREDICTIONS}
    yield Importer("predictions-web", predictions, "predictions.json", predictions_web, task_type="key_points",
                   setup=_labelled_key_points, web=True)
    yield Importer("evaluate_key_points", predictions, "predictions.json", predictions_command,
                   task_type="key_points", setup=_labelled_key_points)
    yield Importer("build_counter_speech", {"speech-transcripts.csv": IBM_TRANSCRIPTS,
                                            "idebate-claim-to-sentence-matching.csv": IBM_MATCHING},
                   "speech-transcripts.csv", counter_speech_command, task_type="counter_speech")
    yield Importer("comprehension-cli", {"speeches.csv": COMPREHENSION_SPEECHES}, "speeches.csv", comprehension_cli)
    from annotation import media_sources

    yield Importer("import_media", {"manifest.csv": MANIFEST}, "manifest.csv", media_command,
                   size_limit=(media_sources, "MANIFEST_MAX_BYTES"))


IMPORTERS = list(_importers())


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
        assert re.search(r"larger than|too large|at most", message), message
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
# Upload forms and serializers that are not text imports: audio files are checked as audio
# (annotation/audio.py) and a zip of them by annotation/media_sources.py; the manifest of a
# folder is in IMPORTERS as import_media.
NOT_TEXT_IMPORTS = {"MediaUploadForm", "MediaUploadSerializer"}
COVERED_FORMS = {"ItemImportForm": "items-admin", "CrowdImportForm": "crowd-admin",
                 "ImportForm": "key-points-files-admin", "Track2Form": "track2-admin",
                 "SetsForm": "key-point-sets-admin", "PredictionsForm": "predictions-web",
                 "ImportSerializer": "items-api"}


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
    from rest_framework import serializers

    get_resolver().url_patterns  # noqa: B018 - imports every view module, and with them their forms
    seen = set()
    for cls in [*_subclasses(forms.Form), *_subclasses(serializers.Serializer)]:
        declared = getattr(cls, "base_fields", None) or getattr(cls, "_declared_fields", {})
        if not cls.__module__.startswith(("annotation.", "task_types.", "analysis.")):
            continue
        if not any(isinstance(f, forms.FileField | serializers.FileField) for f in declared.values()):
            continue
        if cls.__name__ in NOT_TEXT_IMPORTS:
            continue
        assert cls.__name__ in COVERED_FORMS, f"{cls.__module__}.{cls.__name__} uploads a file: add its page to IMPORTERS"
        assert any(n.startswith(COVERED_FORMS[cls.__name__]) for n in names), cls.__name__
        seen.add(cls.__name__)
    assert seen == set(COVERED_FORMS)  # the search finds the forms it knows


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
