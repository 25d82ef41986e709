"""The contract's parts that quality control reads: option texts for staff, the reason review."""

import pytest

from annotation.task_types import task_types

TYPES = [t.slug for t in task_types()]


@pytest.mark.parametrize("slug", TYPES)
def test_option_texts_name_every_shown_option_by_its_id(slug):
    task = next(t for t in task_types() if t.slug == slug)
    payload = task.clean_item(task.example().records[0]).payload
    texts = task.option_texts(payload)
    shown = {str(i) for ids in task.order_parts(payload).values() for i in ids}
    # Every option of the shown parts that is a record with an id has an entry (pairwise's two
    # sides are keys, not a list of records, and have none).
    assert set(texts) <= shown
    if slug in ("comprehension", "key_points", "counter_speech"):
        assert set(texts) == shown
    if slug == "comprehension":
        assert all(texts.values()) and texts == {str(t["id"]): t["title"] for t in payload["titles"]}


def test_only_pairwise_offers_a_reason_review():
    offering = {t.slug: t.reason_review for t in task_types() if t.reason_review is not None}
    assert offering == {"pairwise": ("gold-page", "reasons")}


# What each type's items are grouped by: what a worker reads as the item's topic.
GROUPED_BY = {"pairwise": "topic", "key_points": "topic|stance", "key_point_sets": "topic|stance",
              "comprehension": "motion|stance", "counter_speech": "motion", "response_scoring": "prompt"}


def test_the_types_here_say_what_their_items_are_grouped_by():
    assert set(GROUPED_BY) <= set(TYPES)


@pytest.mark.parametrize("slug", TYPES)
def test_an_items_group_is_what_the_worker_reads_as_its_topic(slug):
    task = next(t for t in task_types() if t.slug == slug)
    payloads = [task.clean_item(r).payload for r in task.example().records]
    groups = [task.item_group(p) for p in payloads]
    if slug not in GROUPED_BY:
        # Groups are optional (``group_of`` returns None by default); a type's own are stored.
        assert all(g is None or 0 < len(g) <= 200 for g in groups)
        return
    assert all(isinstance(g, str) and 0 < len(g) <= 200 for g in groups)
    # Items of one topic share a group; the group follows the topic.
    first = payloads[0]
    assert task.item_group(dict(first)) == groups[0]
    changed = _with_other_topic(slug, first)
    assert task.item_group(changed) != groups[0]


def _with_other_topic(slug: str, payload: dict) -> dict:
    other = dict(payload)
    if slug in ("pairwise", "key_points", "key_point_sets"):
        other["topic"] = payload["topic"] + " (another)"
    elif slug == "comprehension":
        other["motion_id"], other["motion"] = "another", "Another motion"
    elif slug == "counter_speech":
        other["motion_id"], other["motion"] = "another", "Another motion"
    else:
        other["prompt"] = {**payload["prompt"], "id": "another"}
    return other


def test_a_type_without_groups_stores_none_and_a_long_group_is_cut():
    from annotation.task_types.base import GROUP_LENGTH, TaskType

    task = next(t for t in task_types() if t.slug == "pairwise")
    assert TaskType.group_of(task, {"topic": "x"}) is None
    payload = {**task.clean_item(task.example().records[0]).payload, "topic": "t" * 300}
    assert task.item_group(payload) == "t" * GROUP_LENGTH
