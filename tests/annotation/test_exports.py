"""The raw annotation export, byte for byte against a plain rendering from model objects, for
every registered task type: late, rejected and revised answers, ``all=1``, reasons a CSV must
quote or a spreadsheet would run, times with and without microseconds, text beyond ASCII."""

from __future__ import annotations

import csv
import io
import json
import random
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from annotation import exports
from annotation.exports import FORMATS, export_columns, iso_time
from annotation.models import Annotation, Assignment, Item, WorkerProfile
from annotation.services import annotation_submit, assignment_next, items_import_file
from annotation.spreadsheet import safe_cell
from annotation.task_types import get_task_type, task_types
from annotation.task_types.base import AnswerInvalid, ExportContext
from quality.models import WorkerStanding
from quality.services.adjudication import item_adjudicate
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
SLUGS = [t.slug for t in task_types()]
REASONS = [
    "plain", "a, b and c", "two\nlines", 'she said "no"', '=HYPERLINK("http://evil.example")', "-2+3", "+cmd",
    "@SUM(A1)", "\ttabbed", "\r\nwindows", "Zoë — naïve ✓ 日本語", "", "-0.5",
]

PLAYBACK = {"playback": {
    "heard": 0.93, "server": {"clip_duration": 30.0, "fetched_at": "2024-02-29T23:59:00+00:00", "plays": 1},
    "events": [{"type": "play", "t": 0, "at": 1.5, "wall": "2024-02-29T23:59:01.5+00:00"},
               {"type": "seek", "t": 3.25, "at": 5, "from": 1.0}, {"type": "pause", "t": 12.5, "at": 14},
               {"type": "ended", "t": 30.0, "at": 32.125}],
}}


def _reference_rows(project, *, counted_only: bool) -> list[dict]:
    """What each annotation exports, read through the models one by one."""
    task = get_task_type(project.task_type)
    annotations = Annotation.objects.filter(assignment__project=project).select_related("assignment__item",
                                                                                        "assignment__worker")
    if counted_only:
        annotations = annotations.filter(assignment__status__in=["submitted", "approved"])
    rows = []
    for annotation in sorted(annotations, key=lambda a: (a.assignment.submitted_at, a.pk)):
        assignment, item = annotation.assignment, annotation.assignment.item
        profile = WorkerProfile.objects.filter(user=assignment.worker).first()
        row = {
            "project": project.slug, "item": item.external_id, "assignment": assignment.pk,
            "worker": assignment.worker.username,
            "worker_source": profile.source if profile else "",
            "worker_external_id": profile.external_id or "" if profile else "",
            "standing": WorkerStanding.objects.filter(project=project, worker=assignment.worker)
            .values_list("state", flat=True).first() or "active",
            "status": assignment.status, "accepted_at": assignment.assigned_at.isoformat(),
            "submitted_at": assignment.submitted_at.isoformat() if assignment.submitted_at else "",
            "seconds": annotation.seconds, "client_seconds": annotation.client_seconds, "version": annotation.version,
            "revised_at": annotation.revised_at.isoformat() if annotation.revised_at else "",
            "shown_order": json.dumps(assignment.shown_order or task.order_parts(item.payload), separators=(",", ":"),
                                      ensure_ascii=False) if task.shown_order_parts else "",
            "adjudicated": json.dumps(item.adjudication.answer, separators=(",", ":"), ensure_ascii=False, sort_keys=True)
            if hasattr(item, "adjudication") else "",
        }
        client = annotation.client or {}
        context = ExportContext(item_external_id=item.external_id, payload=item.payload, gold=item.gold,
                                metrics=client.get("metrics", {}), refused=client.get("refused", []))
        rows.append({**row, **task.export_row(context, annotation.answer, annotation.reason)})
    return rows


def _render(rows: list[dict], fmt: str, columns: list[str]) -> str:
    if fmt == "csv":
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(columns)
        for row in rows:
            writer.writerow([safe_cell(row.get(column, "")) for column in columns])
        return out.getvalue()
    lines = [json.dumps(row, ensure_ascii=False) for row in rows]
    if fmt == "jsonl":
        return "".join(line + "\n" for line in lines)
    return "[" + ",".join("\n" + line for line in lines) + "\n]\n"


def _worker(username: str, **profile) -> object:
    worker = UserFactory(username=username)
    WorkerProfile.objects.filter(user=worker).update(**profile)
    return worker


def _answered_project(slug: str):
    """Three items answered by five workers each, then made awkward by hand."""
    task = get_task_type(slug)
    example = task.example()
    project = ProjectFactory(task_type=slug, redundancy=5, options=task.clean_options(example.options))
    # Copies of the first record, which the example's answer fits.
    records = [{**example.records[0], "id": f"item-{n}"} for n in range(3)]
    items_import_file(project=project, data=json.dumps(records).encode(), filename="items.json")
    workers = [
        _worker("zoë-1", source="prolific", external_id="5f9a,ü"),
        _worker("=cmd|' /C calc'!A0", source="mturk", external_id="-W2"),
        _worker("plain-3"),
        _worker("worker, with comma", source="mturk", external_id="W4"),
        _worker("no-profile-5"),
    ]
    for n, worker in enumerate(workers):
        while (assignment := assignment_next(project=project, worker=worker).assignment) is not None:
            if n == 0:  # a refused answer first: it stays with the accepted one
                with pytest.raises(AnswerInvalid):
                    annotation_submit(assignment=assignment, worker=worker, data=example.invalid)
            annotation_submit(assignment=assignment, worker=worker, data=example.answer,
                              client={"elapsed_ms": 1500 + 250 * n, "note": 'mentions "metrics" in a value'})
    WorkerProfile.objects.filter(user=workers[-1]).delete()
    # One worker is in review (their answers stay data): the standing column says so.
    WorkerStanding.objects.filter(project=project, worker=workers[2]).update(state="review")

    annotations = list(Annotation.objects.filter(assignment__project=project).order_by("pk"))
    assert len(annotations) == 15 and all("refused" in a.client for a in annotations[:3])
    # Client metrics as a listening answer stores them (types that export none ignore them).
    Annotation.objects.filter(pk=annotations[6].pk).update(client={**annotations[6].client, "metrics": PLAYBACK})
    start = datetime(2024, 2, 29, 23, 59, 58, tzinfo=UTC)
    fractions = [0, 120000, 5, 999999, 500000, 0, 1]
    for n, annotation in enumerate(annotations):
        # Submitted in another order than stored; the last two at one moment (the id orders them).
        accepted = start + timedelta(minutes=(7 * n) % 13, microseconds=fractions[n % len(fractions)])
        submitted = accepted + timedelta(seconds=30, microseconds=fractions[(n + 3) % len(fractions)])
        if n >= 13:
            accepted, submitted = start, start + timedelta(seconds=1)
        Assignment.objects.filter(pk=annotation.assignment_id).update(
            assigned_at=accepted, expires_at=accepted + timedelta(hours=1), submitted_at=submitted)
        Annotation.objects.filter(pk=annotation.pk).update(reason=REASONS[n % len(REASONS)])
    revised = annotations[1]
    Annotation.objects.filter(pk=revised.pk).update(version=3, revised_at=start + timedelta(days=1, microseconds=40))
    Annotation.objects.filter(pk=annotations[2].pk).update(seconds=None)
    Assignment.objects.filter(pk=annotations[3].assignment_id).update(status=Assignment.Status.REJECTED)
    # A late answer that found no free slot: kept, not counted.
    Assignment.objects.filter(pk=annotations[4].assignment_id).update(status=Assignment.Status.EXPIRED)
    Assignment.objects.filter(pk=annotations[5].assignment_id).update(status=Assignment.Status.APPROVED)
    first_item = Item.objects.filter(project=project).order_by("pk").first()
    Item.objects.filter(pk=first_item.pk).update(external_id="@ünï,cödé \"1\"")
    # The second item was adjudicated: its rows carry the decision (the type's gold fields).
    decided = Item.objects.filter(project=project).order_by("pk")[1]
    item_adjudicate(item=decided, answer={f: annotations[0].answer[f] for f in task.gold_fields},
                    why='=decided, "quoted"', actor=None)
    return project


@pytest.fixture(params=[False, True], ids=["default-chunks", "tiny-chunks"])
def chunks(request, monkeypatch):
    """The defaults, and chunks and stream pieces of a few rows, so that every boundary is crossed."""
    if request.param:
        monkeypatch.setattr(exports, "CHUNK_ROWS", 2)
        monkeypatch.setattr(exports, "PIECE_ROWS", 3)
        monkeypatch.setattr(exports, "DISTINCT_ANSWERS", 1)
    return request.param


@pytest.mark.parametrize("slug", SLUGS)
def test_every_format_is_the_plain_rendering_byte_for_byte(slug, chunks, client):
    project = _answered_project(slug)
    columns = export_columns(project)
    client.force_login(UserFactory(role="researcher"))
    api = APIClient()
    api.force_authenticate(UserFactory(role="researcher"))
    for counted_only in (True, False):
        expected_rows = _reference_rows(project, counted_only=counted_only)
        statuses = {row["status"] for row in expected_rows}
        assert statuses == ({"submitted", "approved"} if counted_only else {"submitted", "approved", "rejected", "expired"})
        assert {row["standing"] for row in expected_rows} == {"active", "review"}
        # One item's rows carry its adjudicated answer, the others' an empty cell.
        assert {bool(row["adjudicated"]) for row in expected_rows} == {True, False}
        query = {} if counted_only else {"all": "1"}
        for fmt in FORMATS:
            expected = _render(expected_rows, fmt, columns)
            page = client.get(f"/projects/{project.slug}/export/annotations.{fmt}", query)
            pieces = [bytes(piece) for piece in page.streaming_content]
            assert b"".join(pieces).decode() == expected, (fmt, counted_only)
            if chunks:  # streamed in pieces of a few rows, each holding whole rows
                assert len(pieces) > 2 and (fmt == "json" or all(piece.endswith(b"\n") for piece in pieces))
            from_api = api.get(f"/api/projects/{project.slug}/annotations/", {"fmt": fmt, **query})
            assert b"".join(from_api.streaming_content).decode() == expected, (fmt, counted_only)
        # The streamed CSV's rows, read back: one per annotation, in submission order.
        page = client.get(f"/projects/{project.slug}/export/annotations.csv", query)
        read = list(csv.DictReader(io.StringIO(b"".join(page.streaming_content).decode())))
        assert [int(row["assignment"]) for row in read] == [row["assignment"] for row in expected_rows]
        assert [row["worker"] for row in read] == [safe_cell(row["worker"]) for row in expected_rows]


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_the_command_writes_what_the_download_gives(fmt, tmp_path, capsys):
    project = _answered_project("pairwise")
    out = tmp_path / f"annotations.{fmt}"
    call_command("export_annotations", project.slug, "--format", fmt, "--out", str(out), "--all")
    expected = _render(_reference_rows(project, counted_only=False), fmt, export_columns(project))
    assert out.read_bytes() == expected.encode()
    call_command("export_annotations", project.slug, "--format", fmt)
    assert capsys.readouterr().out == _render(_reference_rows(project, counted_only=True), fmt, export_columns(project))


def test_an_empty_project_exports_its_header_and_empty_lists(client):
    project = ProjectFactory()
    client.force_login(UserFactory(role="researcher"))
    bodies = {fmt: b"".join(client.get(f"/projects/{project.slug}/export/annotations.{fmt}").streaming_content)
              for fmt in FORMATS}
    assert bodies == {"csv": (",".join(export_columns(project)) + "\r\n").encode(), "json": b"[\n]\n", "jsonl": b""}


def test_times_read_as_text_are_written_as_isoformat_writes_them():
    rng = random.Random(23)
    for _ in range(20000):
        moment = datetime(1990, 1, 1, tzinfo=UTC) + timedelta(
            seconds=rng.randrange(10**9), microseconds=rng.choice([0, rng.randrange(10**6), rng.randrange(10) * 100000]))
        stored = str(moment.replace(tzinfo=None))  # SQLite: as Django stores it
        # PostgreSQL's text in UTC: the fraction without its trailing zeros.
        postgres = (stored.rstrip("0") if "." in stored else stored) + "+00"
        assert iso_time(stored) == iso_time(postgres) == moment.isoformat(), stored
    assert iso_time(None) == ""
    assert iso_time("2016-01-31 16:53:19+02") == "2016-01-31T16:53:19+02:00"
    assert iso_time("2016-01-31 16:53:19.5+05:30") == "2016-01-31T16:53:19.500000+05:30"
    assert iso_time("2016-01-31T16:53:19") == "2016-01-31T16:53:19+00:00"

