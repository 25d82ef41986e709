"""The gold of comprehension questions: titles the source never judged for a speech stay out of it."""

import json

import pandas as pd
import pytest

from annotation.task_types import get_task_type
from annotation.task_types.base import FieldError
from task_types.comprehension.corpus import gold_labels, ibm_questions, questions_from_corpus
from task_types.comprehension.report import reference

TASK = get_task_type("comprehension")
GOOD = {"motion": "M", "speech_id": "s", "stance": "pro", "transcript": "T.",
        "titles": json.dumps([{"id": "a", "title": "A"}, {"id": "b", "title": "B"}, {"id": "c", "title": "C"}])}


def test_a_question_names_the_titles_its_gold_does_not_judge():
    item = TASK.clean_item({**GOOD, "gold": "a", "gold_unjudged": "c"})
    assert item.gold == {"argued": ["a"], "unjudged": ["c"]}
    assert gold_labels(item.gold, ["a", "b", "c"]) == {"a": 1, "b": 0}
    # Without unjudged titles the gold stays the list of argued titles, every other title negative.
    plain = TASK.clean_item({**GOOD, "gold": "a"}).gold
    assert plain == ["a"] and gold_labels(plain, ["a", "b", "c"]) == {"a": 1, "b": 0, "c": 0}
    assert gold_labels(None, ["a"]) is None
    assert TASK.clean_item({**GOOD, "gold": "none", "gold_unjudged": ["b", "c"]}).gold == {
        "argued": [], "unjudged": ["b", "c"]}


@pytest.mark.parametrize(("change", "message"), [
    ({"gold": "a", "gold_unjudged": "zz"}, "names titles the question does not have: zz"),
    ({"gold": "a", "gold_unjudged": "a"}, "both argued and unjudged: a"),
    ({"gold_unjudged": "c"}, "needs a gold"),
])
def test_bad_unjudged_titles_are_refused_naming_the_field(change, message):
    with pytest.raises(FieldError, match=message) as exc:
        TASK.clean_item({**GOOD, **change})
    assert exc.value.field == "gold_unjudged"


def test_corpus_questions_carry_the_unjudged_titles():
    speeches = [{"id": "p", "motion_id": "1", "motion": "M", "stance": "pro", "transcript": "x"}]
    titles = [{"id": t, "motion_id": "1", "stance": "pro", "title": t.upper()} for t in "abc"]
    [record] = questions_from_corpus(speeches, titles, {"p": ["a"]}, unjudged={"p": ["c"]})
    assert TASK.clean_item(record).gold == {"argued": ["a"], "unjudged": ["c"]}


@pytest.mark.shared_data
def test_the_ibm_gold_leaves_out_the_pairs_the_release_never_annotated(shared_data):
    records = ibm_questions(shared_data / "ibm_recorded_debating_v4")
    items = [TASK.clean_item(r) for r in records]
    labels = [gold_labels(i.gold, [t["id"] for t in i.payload["titles"]]) for i in items]
    # 332 pairs offered; the matching file has sentence rows for 254 of them, 180 mentioned.
    assert sum(len(i.payload["titles"]) for i in items) == 332
    assert sum(len(x) for x in labels) == 254 and sum(sum(x.values()) for x in labels) == 180
    frame = pd.DataFrame([{"item": i.external_id, "gold": i.gold, **TASK.item_columns(i.payload)} for i in items])
    machine = reference(pd.DataFrame(), frame, {"reference_labels": "gold", "dev_share": 0.5, "split_seed": 0})
    assert machine["dev"]["n_pairs"] + machine["test"]["n_pairs"] == 254
