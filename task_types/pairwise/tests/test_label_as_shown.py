"""A pairwise answer in the words of the page it was given on: A1 is the argument shown left."""

import pytest

from annotation.task_types import get_task_type


@pytest.mark.parametrize(("label", "order", "words"), [
    ("a1", {"sides": ["a1", "a2"]}, "A1 is more convincing"),
    ("a2", {"sides": ["a1", "a2"]}, "A1 is less convincing (A2 is more convincing)"),
    # The item's arg2 stood left: its being more convincing read "A1 is more convincing".
    ("a2", {"sides": ["a2", "a1"]}, "A1 is more convincing"),
    ("a1", {"sides": ["a2", "a1"]}, "A1 is less convincing (A2 is more convincing)"),
    ("equal", {"sides": ["a2", "a1"]}, "A1 and A2 are equally convincing"),
    ("a2", None, "A1 is less convincing (A2 is more convincing)"),
])
def test_the_label_reads_as_the_worker_saw_it(label, order, words):
    task = get_task_type("pairwise")
    assert task.label_display_as_shown({"label": label}, order=order) == words


def test_other_types_read_as_their_label_display():
    task = get_task_type("key_points")
    answer = {"key_points": [], "none": True}
    assert task.label_display_as_shown(answer, order={"key_points": ["kp2", "kp1"]}) == task.label_display(answer)
