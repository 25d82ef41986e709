"""The key-point set ranking type: items with two or more systems' sets (names kept as gold),
the chosen set checked on the server, the export naming the system chosen."""

import pytest

from annotation.task_types import get_task_type
from annotation.task_types.base import AnswerInvalid, ExportContext, FieldError

TASK = get_task_type("key_point_sets")


def record(**changes):
    return {**TASK.example().records[0], **changes}


def test_sets_get_neutral_ids_and_the_systems_go_to_gold():
    item = TASK.clean_item(record())
    assert [s["id"] for s in item.payload["sets"]] == ["a", "b"]
    assert "system-1" not in str(item.payload) and item.gold == {"systems": {"a": "system-1", "b": "system-2"}}
    assert item.payload["sets"][0]["key_points"][0] == {"text": "Uniforms limit self-expression", "share": 0.4,
                                                        "matched": None}


@pytest.mark.parametrize(("changes", "field"), [
    ({"sets": [{"system": "x", "key_points": [{"text": "a", "share": 0.1}]}]}, "sets"),
    ({"sets": [{"system": "x", "key_points": [{"text": "a", "share": 0.1}]}] * 2}, "sets"),
    ({"sets": [{"system": "x", "key_points": [{"text": "a", "share": 1.5}]},
               {"system": "y", "key_points": [{"text": "b", "share": 0.1}]}]}, "sets[1].key_points[1].share"),
    ({"stance": 0}, "stance"),
])
def test_bad_records_are_refused_naming_the_field(changes, field):
    with pytest.raises(FieldError) as caught:
        TASK.clean_item(record(**changes))
    assert caught.value.field == field


def test_the_choice_must_be_a_set_shown():
    payload = TASK.clean_item(record()).payload
    assert TASK.clean_answer({"choice": "b"}, payload=payload).answer == {"choice": "b"}
    for bad in ({"choice": "c"}, {}):
        with pytest.raises(AnswerInvalid) as caught:
            TASK.clean_answer(bad, payload=payload)
        assert "choice" in caught.value.errors


def test_the_export_names_the_system_chosen():
    item = TASK.clean_item(record())
    row = TASK.export_row(ExportContext(item_external_id="uniform-pro", payload=item.payload, gold=item.gold),
                          {"choice": "b"}, "")
    assert row["choice_system"] == "system-2" and row["systems_shown"] == "system-1|system-2" and row["n_sets"] == 2
