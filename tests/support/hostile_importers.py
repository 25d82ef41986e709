"""The importers of the platform, each with a valid file and the way it is reached (a page, the
API, a command), and the hostile files made from those files: the catalogue that
``tests/security/test_import_hostile_files.py`` sends every hostile file through."""


from __future__ import annotations

import contextlib
import gzip
import html
import io
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.models import ImportJob
from annotation.task_types import task_types
from tests.support import audio
from tests.support.importer_files import (  # noqa: F401  (re-exported to the tests)
    COMPREHENSION_SPEECHES,
    COMPREHENSION_TITLES,
    CROWD,
    IBM_MATCHING,
    IBM_TRANSCRIPTS,
    KPA_ARGUMENTS,
    KPA_KEY_POINTS,
    KPA_LABELS,
    MANIFEST,
    MARK,
    PREDICTIONS,
    PROMPTS,
    REFERENCES,
    RESPONSES,
    UKP_ARGUMENTS,
    T,
    _item_file,
    _marked,
)

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
        where = e.get("where") or " ".join(f"{k} {e[k]}" for k in ("line", "record", "pair") if e.get(k) is not None) or "file"
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


def _api_import(ctx: Ctx, files: dict[str, bytes], what: str, **fields: str) -> None:
    """POST the one file to an API import (``items`` or ``crowd-results``) as staff would."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(ctx.user)
    ((name, data),) = files.items()
    with ctx.capture(execute=True):
        response = client.post(f"/api/projects/{ctx.project.slug}/{what}/import/",
                               {"file": _upload(name, data), **fields}, format="multipart")
    assert response.status_code in (200, 201, 202, 400), response.status_code
    if response.status_code == 400:
        body = response.json()
        raise Refused("\n".join([body.get("detail", ""), *_error_lines(body.get("errors", [])), json.dumps(body)]))
    if response.status_code == 202:
        _job_outcome(ctx)


def items_api(ctx: Ctx, files: dict[str, bytes]) -> None:
    _api_import(ctx, files, "items")


def crowd_api(ctx: Ctx, files: dict[str, bytes]) -> None:
    ctx.settings.IMPORT_INLINE_MAX_BYTES = 0
    _api_import(ctx, files, "crowd-results", source="mturk")


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


def key_point_sets_fields(files: dict[str, bytes]) -> dict[str, Any]:
    """The key-point sets build's form (page and API): two systems from the same (hostile) files."""
    sent = _track2_files(files)
    return {
        "arguments": _upload("arguments.csv", sent["arguments.csv"]),
        **{f"name_{n}": f"s{n}" for n in (1, 2)},
        **{f"key_points_{n}": _upload("key_points.csv", sent["key_points.csv"]) for n in (1, 2)},
        **{f"predictions_{n}": _upload("predictions.json", sent["predictions.json"]) for n in (1, 2)},
        "seed": 0, "min_score": 0, "counts": "topic"}


def key_point_sets_admin(ctx: Ctx, files: dict[str, bytes]) -> None:
    _post_job(ctx, f"/admin/annotation/project/{ctx.project.pk}/key-point-sets/", key_point_sets_fields(files))


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


def predictions_api(ctx: Ctx, files: dict[str, bytes]) -> None:
    ctx.settings.IMPORT_INLINE_MAX_BYTES = 0
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(ctx.user)
    with ctx.capture(execute=True):
        response = client.post(f"/api/projects/{ctx.project.slug}/key-points/evaluations/",
                               {"predictions": _upload("predictions.json", files["predictions.json"])},
                               format="multipart")
    assert response.status_code in (201, 202, 400), response.status_code
    if response.status_code == 400:
        raise Refused(json.dumps(response.json()))
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
    yield Importer("crowd-api", crowd, "results.tsv", crowd_api, setup=_pairwise_corpus, web=True)
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
    yield Importer("predictions-api", predictions, "predictions.json", predictions_api, task_type="key_points",
                   setup=_labelled_key_points, web=True)
    yield Importer("evaluate_key_points", predictions, "predictions.json", predictions_command,
                   task_type="key_points", setup=_labelled_key_points)
    yield Importer("build_counter_speech", {"speech-transcripts.csv": IBM_TRANSCRIPTS,
                                            "idebate-claim-to-sentence-matching.csv": IBM_MATCHING},
                   "speech-transcripts.csv", counter_speech_command, task_type="counter_speech")
    yield Importer("comprehension-cli", {"speeches.csv": COMPREHENSION_SPEECHES}, "speeches.csv", comprehension_cli)
    from annotation.media import sources as media_sources

    yield Importer("import_media", {"manifest.csv": MANIFEST}, "manifest.csv", media_command,
                   size_limit=(media_sources, "MANIFEST_MAX_BYTES"))


def _all_importers() -> list[Importer]:
    # The API twins of the tool pages and the audio uploads live in their own module, which
    # builds on the helpers above.
    from tests.support.hostile_uploads import upload_importers

    return [*_importers(), *upload_importers()]


IMPORTERS = _all_importers()
