"""Every imported text has a limit, the same in every importer and in the manual: a 2 MB text is
refused by every task type with its field named, each type's text fields stop at their limit,
and the manual's table shows the limits the code enforces."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from annotation.importers import check_record, parse_items
from annotation.task_types import get_task_type, limits, task_types
from annotation.task_types.base import FieldError
from task_types.key_points.corpus import read_corpus
from task_types.pairwise.arguments_file import parse_arguments

DOCS = Path(__file__).resolve().parents[2] / "docs"
TWO_MB = 2 * 1024 * 1024


def _texts(value: Any, path: tuple = ()) -> list[tuple[tuple, str]]:
    if isinstance(value, str):
        return [(path, value)]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in _texts(v, (*path, k))]
    if isinstance(value, list):
        return [t for i, v in enumerate(value) for t in _texts(v, (*path, i))]
    return []


def _with(record: dict[str, Any], path: tuple, value: str) -> dict[str, Any]:
    copy = json.loads(json.dumps(record))
    node = copy
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return copy


@pytest.mark.parametrize("slug", [t.slug for t in task_types()])
def test_a_2_mb_text_in_any_field_of_any_type_is_refused_naming_the_field(slug):
    task = get_task_type(slug)
    record = task.example().records[0]
    for path, _ in _texts(record):
        hostile = _with(record, path, "x" * TWO_MB)
        with pytest.raises(FieldError) as refused:
            check_record(hostile)
            task.clean_item(hostile)
        assert refused.value.field, (slug, path)
        assert str(path[0]) in refused.value.field, (slug, path, refused.value.field)


@pytest.mark.parametrize(("slug", "field", "limit"), [
    ("key_points", "argument", limits.ARGUMENT), ("key_points", "topic", limits.TOPIC),
    ("key_points", "id", limits.ID), ("pairwise", "topic", limits.ID), ("pairwise", "prompt", limits.TOPIC),
    ("pairwise", "stance", limits.STANCE), ("key_point_sets", "topic", limits.TOPIC),
])
def test_a_text_field_takes_its_limit_and_not_one_character_more(slug, field, limit):
    task = get_task_type(slug)
    record = task.example().records[0]
    flat = {k: v for k, v in record.items()}
    for key in ("arg1", "arg2"):  # pairwise examples may nest the arguments
        if isinstance(flat.get(key), dict):
            flat[f"{key}_id"], flat[f"{key}_text"] = flat[key]["id"], flat.pop(key)["text"]
    task.clean_item({**flat, field: "y" * limit})
    with pytest.raises(FieldError, match=f"at most {limit:,}") as refused:
        task.clean_item({**flat, field: "y" * (limit + 1)})
    assert refused.value.field == field


def test_the_corpus_files_hold_their_columns_to_the_limits():
    args = "arg_id,argument,topic,stance\na1,{text},T,1\n"
    kps = "key_point_id,key_point,topic,stance\nk1,{text},T,1\n"
    read_corpus(args.format(text="a" * limits.ARGUMENT), kps.format(text="k" * limits.KEY_POINT))
    with pytest.raises(Exception, match=r"arguments.csv line 2, field 'argument': is 10,001 characters long"):
        read_corpus(args.format(text="a" * (limits.ARGUMENT + 1)), kps.format(text="k"))
    with pytest.raises(Exception, match=r"key_points.csv line 2, field 'key_point': is 501 characters long"):
        read_corpus(args.format(text="a"), kps.format(text="k" * (limits.KEY_POINT + 1)))
    tsv = "arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\nx1\tt\tP\tS\ta\t{text}\n"
    with pytest.raises(Exception, match=r"line 2, field 'text': is 10,001 characters long"):
        parse_arguments(tsv.format(text="a" * (limits.ARGUMENT + 1)).encode())


def test_an_item_file_names_the_field_of_a_text_over_the_csv_modules_own_limit():
    """Python's csv module refuses fields over 131,072 characters without naming them."""
    task = get_task_type("key_points")
    text = "id,topic,stance,argument,key_points\na1,T,1,{arg},\"[{{\"\"id\"\": \"\"k\"\", \"\"text\"\": \"\"K\"\"}}]\"\n"
    with pytest.raises(Exception, match=r"line 2, field 'argument': is 200,000 characters long"):
        parse_items(text.format(arg="a" * 200_000).encode(), fmt="csv", task_type=task)


def test_the_manual_shows_the_limits_the_code_enforces():
    page = (DOCS / "admins.md").read_text()
    table = page[page.index('<a id="import-limits"></a>'):]
    rows = {m.group(1).strip(): m.group(2) for m in re.finditer(r"^\| ([^|]+) \| ([^|]+) \|", table, flags=re.M)}
    shown = {int(v.replace(",", "")) for v in rows.values() if re.fullmatch(r"[\d,]+", v.strip())}
    enforced = {value for name, value in vars(limits).items() if name.isupper() and isinstance(value, int)}
    assert enforced <= shown, f"limits missing from the manual's table: {sorted(enforced - shown)}"
