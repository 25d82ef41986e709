"""The long frame built from the database."""

import pytest

from analysis.frames import annotation_frame
from annotation.services import annotation_submit, assignment_next, assignment_review
from task_types.pairwise.tests.factories import answer
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_long_frame_has_one_row_per_counted_annotation():
    project = ProjectFactory(redundancy=2)
    items = ItemFactory.create_batch(2, project=project)
    workers = [UserFactory(username=f"w{i}") for i in range(3)]
    labels = {"w0": "a1", "w1": "a2", "w2": "equal"}
    submitted = []
    for w in workers:
        for _ in range(2):
            a = assignment_next(project=project, worker=w).assignment
            if a is None:
                break
            submitted.append(annotation_submit(assignment=a, worker=w, data=answer(labels[w.username], "same"),
                                               client={"elapsed_ms": 2000}).annotation)
    rejected = submitted[0].assignment
    assignment_review(assignment=rejected, approve=False)
    loaded = annotation_frame(project=project)
    frame = loaded.frame
    assert loaded.annotations == len(submitted) - 1 == len(frame)
    assert loaded.last_annotation_id == max(a.pk for a in submitted)
    assert list(frame.columns[:3]) == ["item", "worker", "label"]
    assert set(frame["item"]) <= {i.external_id for i in items}
    assert (frame["standpoint"] == "same").all()
    assert rejected.annotation.pk not in set(frame["annotation"])
    assert frame.groupby("worker")["label"].first().to_dict() == {w: labels[w] for w in frame["worker"].unique()}
    assert frame["submitted_at"].is_monotonic_increasing
    head = annotation_frame(project=project, up_to_id=submitted[2].pk)
    assert head.annotations == len([a for a in submitted[1:3]])


def test_empty_project_gives_an_empty_frame_with_columns():
    loaded = annotation_frame(project=ProjectFactory())
    assert loaded.annotations == 0 and loaded.last_annotation_id is None
    assert {"item", "worker", "label"} <= set(loaded.frame.columns)


def _varied_project():
    """Answers of every shape the frame must carry: a missing time, an empty reason, an approved
    and a rejected answer, two projects whose assignment ids interleave."""
    from annotation.models import Annotation

    project, other = ProjectFactory(redundancy=3), ProjectFactory(redundancy=3)
    workers = [UserFactory(username=f"v{i}") for i in range(3)]
    ItemFactory.create_batch(4, project=project)
    ItemFactory.create_batch(2, project=other)
    stored = []
    for round_ in range(4):
        for n, w in enumerate(workers):
            for p in (project, other):
                a = assignment_next(project=p, worker=w).assignment
                if a is None:
                    continue
                reason = f"Reason {round_}-{n}, with a comma, \"quotes\" and\na second line."
                stored.append(annotation_submit(assignment=a, worker=w, data=answer(["a1", "a2", "equal"][n], "same",
                                                                               reason=reason),
                                                client={"elapsed_ms": 1500}).annotation)
    mine = [s for s in stored if s.assignment.project_id == project.pk]
    Annotation.objects.filter(pk=mine[0].pk).update(seconds=None)
    Annotation.objects.filter(pk=mine[3].pk).update(reason="")
    # A stored value holding the bulk path's separator: that chunk reads the column as an array.
    Annotation.objects.filter(pk=mine[4].pk).update(answer={"label": "a1\x1fa2", "standpoint": "same"})
    assignment_review(assignment=mine[1].assignment, approve=True)
    assignment_review(assignment=mine[2].assignment, approve=False)
    return project, mine


@pytest.mark.parametrize("chunk", [2, 500_000])
def test_bulk_path_gives_the_frame_the_row_by_row_path_gives(monkeypatch, chunk):
    from django.db import connection

    import analysis.frames as frames

    if connection.vendor != "postgresql":
        pytest.skip("the bulk path is PostgreSQL's")
    project, mine = _varied_project()
    monkeypatch.setattr(frames, "CHUNK_IDS", chunk)
    bulk = annotation_frame(project=project)
    bulk_head = annotation_frame(project=project, up_to_id=mine[5].pk)
    bulk_all = annotation_frame(project=project, counted_only=False)
    no_reasons = annotation_frame(project=project, reasons=False)
    monkeypatch.setattr(frames, "_bulk_available", lambda: False)  # the row-by-row path of other databases
    rows = annotation_frame(project=project)
    assert len(bulk.frame) == len(mine) - 1 and bulk.annotations == rows.annotations
    assert bulk.frame.equals(rows.frame), (bulk.frame.compare(rows.frame) if bulk.frame.shape == rows.frame.shape
                                           else (bulk.frame, rows.frame))
    assert bulk_head.frame.equals(annotation_frame(project=project, up_to_id=mine[5].pk).frame)
    assert bulk_all.frame.equals(annotation_frame(project=project, counted_only=False).frame)
    assert no_reasons.frame.drop(columns="reason").equals(rows.frame.drop(columns="reason"))
    assert (no_reasons.frame["reason"] == "").all()
    assert bulk.frame["seconds"].isna().sum() == 1
    assert (bulk.frame["label"] == "a1\x1fa2").sum() == 1


@pytest.mark.django_db(transaction=True)
def test_bulk_path_reads_chunks_on_two_connections(monkeypatch):
    from django.db import connection

    import analysis.frames as frames

    if connection.vendor != "postgresql":
        pytest.skip("the bulk path is PostgreSQL's")
    project, mine = _varied_project()
    monkeypatch.setattr(frames, "CHUNK_IDS", 3)
    bulk = annotation_frame(project=project)
    monkeypatch.setattr(frames, "_bulk_available", lambda: False)
    assert bulk.frame.equals(annotation_frame(project=project).frame)
    assert len(bulk.frame) == len(mine) - 1


def test_rows_come_in_submission_order_whatever_order_the_ids_have():
    from datetime import timedelta

    from django.utils import timezone

    from annotation.models import Assignment

    project, mine = _varied_project()
    start = timezone.now()
    # Later ids were submitted earlier; two share a time (then the annotation id decides).
    for n, annotation in enumerate(mine):
        Assignment.objects.filter(pk=annotation.assignment_id).update(submitted_at=start - timedelta(seconds=n // 2))
    frame = annotation_frame(project=project, counted_only=False).frame
    at = list(frame["submitted_at"])
    assert at == sorted(at)
    for (t1, a1), (t2, a2) in zip(zip(at, frame["annotation"], strict=True), zip(at[1:], frame["annotation"][1:],
                                                                               strict=True), strict=False):
        assert t1 < t2 or a1 < a2
    assert list(frame["annotation"])[:2] == sorted(a.pk for a in mine[-2:])


def test_bulk_path_skips_unanswered_assignments_without_shifting_times(monkeypatch):
    """Open, returned and expired assignments have no submission time: interleaved with answered
    ones (by id), they must not shift the times of the answers that follow them."""
    from django.db import connection

    import analysis.frames as frames
    from annotation.services import assignment_return

    if connection.vendor != "postgresql":
        pytest.skip("the bulk path is PostgreSQL's")
    project = ProjectFactory(redundancy=3)
    ItemFactory.create_batch(3, project=project)
    waiting, answering, leaving = UserFactory(), UserFactory(), UserFactory()
    assignment_next(project=project, worker=waiting)  # stays open: the lowest id, no time
    returned = assignment_next(project=project, worker=leaving).assignment
    assignment_return(assignment=returned, worker=leaving)
    for label in ("a1", "a2"):
        a = assignment_next(project=project, worker=answering).assignment
        annotation_submit(assignment=a, worker=answering, data=answer(label))
    bulk = [annotation_frame(project=project, counted_only=c).frame for c in (True, False)]
    monkeypatch.setattr(frames, "_bulk_available", lambda: False)
    rows = [annotation_frame(project=project, counted_only=c).frame for c in (True, False)]
    for b, r in zip(bulk, rows, strict=True):
        assert len(b) == 2 and b.equals(r), (b, r)
        assert b["submitted_at"].notna().all()


def test_both_paths_apply_the_one_rule_of_what_counts_as_data(monkeypatch):
    """Gold and training answers, a withdrawn item's answers and (while the project leaves them
    out) a blocked worker's answers are not data, on either path: the bulk path filters the
    assignments by the same ``Q`` (``annotation.selectors.counted``) the row-by-row path uses."""
    from django.db import connection

    import analysis.frames as frames
    from annotation.models import Assignment, ItemKind, Purpose, Standing
    from quality.services.standing import standing_set
    from tests.annotation.quality_helpers import answered
    from tests.quality_factories import quality_policy

    if connection.vendor != "postgresql":
        pytest.skip("the bulk path is PostgreSQL's")
    project = ProjectFactory(redundancy=3)
    real = ItemFactory.create_batch(2, project=project)
    withdrawn = ItemFactory(project=project, kind=ItemKind.WITHDRAWN)
    gold = ItemFactory(project=project, kind=ItemKind.GOLD)
    honest, blocked = UserFactory(username="honest"), UserFactory(username="blocked")
    data = [answered(item, "a1", worker=honest) for item in real]
    late = answered(real[0], "a2", status=Assignment.Status.EXPIRED)  # not counted, still an answer
    left_out = [answered(item, "a2", worker=blocked) for item in real]
    left_out += [answered(withdrawn, "a1", worker=honest), answered(gold, "a1", worker=honest, purpose=Purpose.GOLD),
                 answered(gold, "a2", purpose=Purpose.TRAINING)]
    standing_set(project=project, worker=blocked, state=Standing.BLOCKED, reason="random answers", audit=False)

    def both(**options):
        bulk = annotation_frame(project=project, **options).frame
        with monkeypatch.context() as m:
            m.setattr(frames, "_bulk_available", lambda: False)
            rows = annotation_frame(project=project, **options).frame
        assert bulk.equals(rows), (bulk, rows)
        return set(bulk["annotation"])

    assert both() == {a.pk for a in data}
    assert both(counted_only=False) == {a.pk for a in data} | {late.pk}
    quality_policy(project, blocked_answers_excluded=False)  # the project keeps blocked workers' answers
    assert both() == {a.pk for a in data + left_out[:2]}
    assert not {a.pk for a in left_out[2:]} & both(counted_only=False)
