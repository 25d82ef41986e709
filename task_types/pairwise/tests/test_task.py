"""The pairwise convincingness task type: items, answers, pair generation."""

import pytest

from annotation.task_types import get_task_type
from annotation.task_types.base import AnswerInvalid, FieldError
from task_types.pairwise.corpus import ArgumentRecord, generate_pairs
from task_types.pairwise.tests.factories import pair_payload

PAIRWISE = get_task_type("pairwise")


@pytest.mark.parametrize("length,ok", [(29, False), (30, True), (140, True), (141, False)])
def test_reason_length_is_enforced(length, ok):
    data = {"label": "a1", "standpoint": "same", "reason": "x" * length}
    if ok:
        assert PAIRWISE.clean_answer(data, payload=pair_payload(1)).reason == "x" * length
    else:
        with pytest.raises(AnswerInvalid) as exc:
            PAIRWISE.clean_answer(data, payload=pair_payload(1))
        assert set(exc.value.errors) == {"reason"}
        assert f"(it has {length})" in exc.value.errors["reason"]


def test_reason_whitespace_does_not_count():
    reason = "   A1   is\n\nclearer and gives   an example.   "
    clean = PAIRWISE.clean_answer({"label": "equal", "standpoint": "none", "reason": reason}, payload={})
    assert clean.reason == "A1 is clearer and gives an example."
    with pytest.raises(AnswerInvalid):
        PAIRWISE.clean_answer({"label": "a1", "standpoint": "none", "reason": " " * 40}, payload={})


def test_every_missing_choice_is_reported():
    with pytest.raises(AnswerInvalid) as exc:
        PAIRWISE.clean_answer({"label": "a3", "reason": "r" * 40}, payload={})
    assert set(exc.value.errors) == {"label", "standpoint"}


def test_answer_shape():
    clean = PAIRWISE.clean_answer({"label": "a2", "standpoint": "opposite", "reason": "r" * 35}, payload={})
    assert clean.answer == {"label": "a2", "standpoint": "opposite"}
    assert PAIRWISE.long_rows(payload={}, answer=clean.answer) == [{"label": "a2", "standpoint": "opposite"}]


def test_item_id_defaults_to_ukpconvarg_pair_id():
    item = PAIRWISE.clean_item({"topic": "t", "prompt": "P", "stance": "s", "arg1_id": "arg1", "arg1_text": "a",
                                "arg2_id": "arg2", "arg2_text": "b"})
    assert item.external_id == "arg1_arg2" and item.gold is None


def test_nested_arguments_are_accepted():
    item = PAIRWISE.clean_item({"id": "x", "topic": "t", "prompt": "P", "stance": "s",
                                "arg1": {"id": "1", "text": "a"}, "arg2": {"id": "2", "text": "b"}})
    assert item.payload["arg2"] == {"id": "2", "text": "b"}


def test_non_text_field_is_named():
    with pytest.raises(FieldError) as exc:
        PAIRWISE.clean_item({"topic": ["t"], "prompt": "P", "stance": "s"})
    assert exc.value.field == "topic"


def test_standpoint_carries_over_within_a_topic_only():
    previous = (pair_payload(1, topic="t1"), {"label": "a1", "standpoint": "same"})
    assert PAIRWISE.initial_answer(payload=pair_payload(2, topic="t1"), previous=previous) == {"standpoint": "same"}
    assert PAIRWISE.initial_answer(payload=pair_payload(2, topic="t2"), previous=previous) == {}
    assert PAIRWISE.initial_answer(payload=pair_payload(2), previous=None) == {}


def args(n, words=20):
    return [ArgumentRecord(f"arg{i:03d}", " ".join(["w"] * (words + i))) for i in range(n)]


def test_all_pairs_once_each_with_random_order():
    records = generate_pairs(args(12), topic="t", prompt="P", stance="s", seed=7)
    assert len(records) == 12 * 11 // 2
    unordered = {frozenset((r["arg1_id"], r["arg2_id"])) for r in records}
    assert len(unordered) == len(records)
    first_is_smaller = sum(r["arg1_id"] < r["arg2_id"] for r in records)
    assert 10 < first_is_smaller < 56  # both orders occur
    assert all(r["id"] == f"{r['arg1_id']}_{r['arg2_id']}" for r in records)


def test_same_seed_same_pairs_other_seed_other_order():
    a = generate_pairs(args(10), topic="t", prompt="P", stance="s", seed=1)
    b = generate_pairs(list(reversed(args(10))), topic="t", prompt="P", stance="s", seed=1)
    c = generate_pairs(args(10), topic="t", prompt="P", stance="s", seed=2)
    assert a == b
    assert [r["id"] for r in a] != [r["id"] for r in c]


def test_word_filter_and_sample():
    pool = args(40, words=0)  # argument i has i words
    records = generate_pairs(pool, topic="t", prompt="P", stance="s", min_words=10, max_words=35, seed=3)
    used = {x for r in records for x in (r["arg1_id"], r["arg2_id"])}
    assert used == {f"arg{i:03d}" for i in range(10, 36)}
    sampled = generate_pairs(pool, topic="t", prompt="P", stance="s", min_words=10, max_words=35, sample=8, seed=3)
    used = {x for r in sampled for x in (r["arg1_id"], r["arg2_id"])}
    assert len(used) == 8 and len(sampled) == 28 and used <= {f"arg{i:03d}" for i in range(10, 36)}
