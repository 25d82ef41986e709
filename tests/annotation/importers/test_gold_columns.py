"""The generic columns item_kind, gold_answer and gold_explanation, read from any format for
every task type before the type reads the record; errors name the line and the field."""

import csv
import io
import json

import pytest

from annotation.importers import ImportFailed, parse_items
from annotation.task_types import get_task_type, task_types

# Types whose worked example reads from CSV/TSV with nested values written as JSON text.
FLAT = ("key_point_sets", "key_points", "pairwise", "response_scoring")


def gold_of(task) -> dict:
    example = task.example()
    return {name: example.answer[name] for name in task.gold_fields}


def records(task, **first) -> list[dict]:
    rows = [dict(r) for r in task.example().records]
    rows[0].update(first)
    return rows


def encode(rows: list[dict], fmt: str) -> bytes:
    if fmt == "json":
        return json.dumps(rows).encode()
    if fmt == "jsonl":
        return "\n".join(json.dumps(r) for r in rows).encode()
    columns = sorted({k for r in rows for k in r})
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t" if fmt == "tsv" else ",")
    writer.writerow(columns)
    for r in rows:
        writer.writerow([json.dumps(r[c]) if isinstance(r.get(c), dict | list) else r.get(c, "") for c in columns])
    return out.getvalue().encode()


CASES = [(t.slug, fmt) for t in task_types() for fmt in ("json", "jsonl")] + [
    (slug, fmt) for slug in FLAT for fmt in ("csv", "tsv")]


@pytest.mark.parametrize(("slug", "fmt"), CASES)
@pytest.mark.parametrize("kind", ["gold", "training"])
def test_a_check_item_comes_with_its_answer_in_every_format(slug, fmt, kind):
    task = get_task_type(slug)
    rows = records(task, item_kind=kind, gold_answer=gold_of(task), gold_explanation="Read the first sentence.")
    parsed = parse_items(encode(rows, fmt), fmt=fmt, task_type=task)
    plain = task.clean_item(task.example().records[0])
    assert (parsed[0].kind, parsed[0].explanation) == (kind, "Read the first sentence.")
    assert parsed[0].gold_answer.answer == task.clean_gold(gold_of(task), payload=plain.payload).answer
    # The type never sees the generic columns: the item is the one it reads without them.
    assert parsed[0].item == plain
    assert (parsed[1].kind, parsed[1].gold_answer, parsed[1].explanation) == ("real", None, "")


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_an_empty_kind_is_a_real_item(fmt):
    task = get_task_type("pairwise")
    parsed = parse_items(encode(records(task, item_kind="", gold_answer="", gold_explanation=""), fmt), fmt=fmt,
                         task_type=task)
    assert [p.kind for p in parsed] == ["real", "real"] and not any(p.is_check for p in parsed)


def test_a_pairwise_gold_pair_may_accept_a_tie():
    task = get_task_type("pairwise")
    answer = {"label": "a1", "accept": [{"label": "equal"}]}
    parsed = parse_items(encode(records(task, item_kind="GOLD", gold_answer=answer), "csv"), fmt="csv", task_type=task)
    assert parsed[0].kind == "gold"
    assert (parsed[0].gold_answer.answer, parsed[0].gold_answer.accept) == ({"label": "a1"}, [{"label": "equal"}])


@pytest.mark.parametrize(("first", "field", "message"), [
    ({"item_kind": "gold"}, "gold_answer", "is required for a gold item"),
    ({"item_kind": "training", "gold_answer": ""}, "gold_answer", "is required for a training item"),
    ({"gold_answer": {"label": "a1"}}, "gold_answer", "a real item takes no gold answer"),
    ({"item_kind": "real", "gold_explanation": "why"}, "gold_explanation", "a real item takes no explanation"),
    ({"item_kind": "golden", "gold_answer": {"label": "a1"}}, "item_kind", "'golden' is not one of real, gold, training"),
    ({"item_kind": "gold", "gold_answer": {"label": "a3"}}, "gold_answer.label", "'a3' is not one of a1, a2, equal"),
    ({"item_kind": "gold", "gold_answer": {"label": "a1", "standpoint": "same"}}, "gold_answer.standpoint",
     "is not a gold field"),
    ({"item_kind": "gold", "gold_answer": {"label": "a1", "accept": [{"label": "maybe"}]}},
     "gold_answer.accept[0].label", "'maybe' is not one of"),
    ({"item_kind": "gold", "gold_answer": "{label: a1"}, "gold_answer", "is not valid JSON"),
])
def test_bad_check_columns_name_the_line_and_the_field(first, field, message):
    task = get_task_type("pairwise")
    for fmt in ("csv", "jsonl"):
        with pytest.raises(ImportFailed) as exc:
            parse_items(encode(records(task, **first), fmt), fmt=fmt, task_type=task)
        (error,) = exc.value.errors
        assert (error.line, error.field) == (2 if fmt == "csv" else 1, field)
        assert message in error.message


def test_a_set_valued_gold_answer_is_checked_like_an_answer():
    task = get_task_type("key_points")
    with pytest.raises(ImportFailed) as exc:
        parse_items(encode(records(task, item_kind="gold", gold_answer={"key_points": ["kp_4_1", "none"]}), "json"),
                    fmt="json", task_type=task)
    assert [(e.line, e.field) for e in exc.value.errors] == [(1, "gold_answer.key_points")]
    parsed = parse_items(encode(records(task, item_kind="gold", gold_answer={"key_points": ["none"]}), "json"),
                         fmt="json", task_type=task)
    assert parsed[0].gold_answer.answer == {"key_points": ["none"]}


def test_every_bad_row_is_reported_at_once():
    task = get_task_type("pairwise")
    rows = records(task, item_kind="gold")
    rows[1].update(gold_answer={"label": "a2"})
    with pytest.raises(ImportFailed) as exc:
        parse_items(encode(rows, "json"), fmt="json", task_type=task)
    assert [(e.line, e.field, e.unit) for e in exc.value.errors] == [(1, "gold_answer", "record"),
                                                                      (2, "gold_answer", "record")]


def test_the_manuals_example_files_import():
    """docs/quality/gold-questions.md shows example files, named by type: each names a registered
    type, reads, and holds a gold question or a training item. A type needs no file there: the
    page says how its worked example becomes one, and the test above builds it for every type."""
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[3] / "docs" / "quality" / "gold-questions.md").read_text(encoding="utf-8")
    examples = re.findall(r'```(csv|jsonl) title="(\w+)\.\w+"\n(.*?)```', page, flags=re.S)
    assert examples and {slug for _, slug, _ in examples} <= {t.slug for t in task_types()}
    kinds = set()
    for fmt, slug, text in examples:
        parsed = parse_items(text.encode(), fmt=fmt, task_type=get_task_type(slug))
        assert any(p.is_check for p in parsed), slug
        assert all(p.explanation for p in parsed if p.is_check), slug
        kinds |= {p.kind for p in parsed}
    assert kinds == {"real", "gold", "training"}
