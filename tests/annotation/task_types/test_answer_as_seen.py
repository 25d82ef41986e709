"""An answer in two sets of words: as its worker saw it (the places they chose, in the order
drawn for their assignment) and as stored (options named by import ids). A pairwise worker who
clicked the left-hand argument stored ``a2`` when the item's arg2 was drawn for the left; the
worker page must say "A1 is more convincing" for that answer, not "A1 is less convincing"."""

from __future__ import annotations

import pytest

from annotation.task_types import get_task_type, task_types

DRAWN = [t for t in task_types() if t.shown_order_parts]


def test_a_left_clicker_with_the_sides_swapped_saw_a1_and_stored_a2():
    pairwise = get_task_type("pairwise")
    swapped, kept = {"sides": ["a2", "a1"]}, {"sides": ["a1", "a2"]}
    answer = {"label": "a2", "standpoint": "none"}
    assert pairwise.answer_as_seen(answer, order=swapped) == "A1 is more convincing (A1 was the item's arg2)"
    assert pairwise.answer_as_stored(answer) == "a2: the item's arg2 is more convincing"
    # The same stored answer from a worker who saw the import order was the right-hand button.
    assert pairwise.answer_as_seen(answer, order=kept) == (
        "A1 is less convincing (A2 is more convincing) (A1 was the item's arg1)")
    assert pairwise.answer_as_seen({"label": "a1"}, order=swapped).startswith("A1 is less convincing")
    assert pairwise.answer_as_seen({"label": "equal"}, order=swapped) == (
        "A1 and A2 are equally convincing (A1 was the item's arg2)")
    assert pairwise.answer_as_stored({"label": "equal"}) == "equal: the item's arguments are equally convincing"
    # No stored order (import order, or collected elsewhere), or an order that is not the two
    # sides: nothing is claimed about what the worker saw.
    for order in (None, {}, {"sides": ["a1"]}, {"sides": ["a1", "x"]}):
        assert pairwise.answer_as_seen(answer, order=order) is None


def test_the_default_words_name_the_places_chosen_among_the_shown_options():
    speech = get_task_type("counter_speech")
    order = {"candidates": ["c3", "c1", "c2"]}
    assert speech.answer_as_seen({"choice": "c1", "reasons": ["other"]}, order=order) == "the option shown 2nd of 3"
    assert speech.answer_as_stored({"choice": "c1", "reasons": ["other"]}) == "choice: c1; reasons: other"
    assert speech.chosen_options({"choice": "c1", "reasons": ["c3"]}, options=order["candidates"]) == ["c3", "c1"]
    points = get_task_type("key_points")
    order = {"key_points": ["k4", "k1", "k2", "k3"]}
    assert points.answer_as_seen({"key_points": ["k3", "k4"]}, order=order) == "the options shown 1st and 4th of 4"
    assert points.answer_as_stored({"key_points": ["k3", "k4"]}) == "key_points: k3, k4"
    # "None" chooses no place, stored as an answer or as a known answer alike.
    assert points.answer_as_seen({"key_points": [], "none": True}, order=order) == "None"
    assert points.answer_as_seen({"key_points": ["none"]}, order=order) == "None"
    assert points.answer_as_stored({"key_points": [], "none": True}) == "key_points: none"
    assert points.answer_as_stored({"key_points": ["none"]}) == "key_points: none"


@pytest.mark.parametrize("task", DRAWN, ids=lambda t: t.slug)
def test_every_type_with_a_drawn_order_says_its_example_answer_as_seen_in_either_order(task):
    example = task.example()
    payload = task.clean_item(example.records[0]).payload
    answer = task.clean_answer(example.answer, payload=payload).answer
    parts = task.order_parts(payload)
    part = task.shown_order_parts[0]
    imported = {name: list(ids) for name, ids in parts.items()}
    reversed_ = {name: list(reversed(ids)) for name, ids in parts.items()}
    chosen = task.chosen_options(answer, options=imported[part])
    assert task.answer_as_seen(answer, order=None) is None
    as_imported, as_reversed = task.answer_as_seen(answer, order=imported), task.answer_as_seen(answer, order=reversed_)
    assert isinstance(as_imported, str) and isinstance(as_reversed, str) and task.answer_as_stored(answer)
    if len(chosen) == 1 and len(imported[part]) > 1:
        # One option chosen among several: reversing the order moves it to another place, and
        # the words as seen say so while the stored words stay the same.
        assert as_imported != as_reversed
