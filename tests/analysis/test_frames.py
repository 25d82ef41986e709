"""The long frame built from the database."""

import pytest

from analysis.frames import annotation_frame
from annotation.services import annotation_submit, assignment_next, assignment_review
from tests.factories import ItemFactory, ProjectFactory, UserFactory, answer

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
