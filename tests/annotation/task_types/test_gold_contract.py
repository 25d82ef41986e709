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
