"""Parsing and validating uploads: every error names its line (or record) and field."""

import json

import pytest

from annotation.importers import ImportFailed, detect_format, parse_items
from annotation.task_types import get_task_type

PAIRWISE = get_task_type("pairwise")
HEADER = "id,topic,prompt,stance,arg1_id,arg1_text,arg2_id,arg2_text,gold\n"


def row(n, **over):
    values = {"id": f"p{n}", "topic": "t", "prompt": "Uniforms?", "stance": "good", "arg1_id": f"x{n}",
              "arg1_text": "first text", "arg2_id": f"y{n}", "arg2_text": "second text", "gold": ""}
    values.update(over)
    return values


def csv_bytes(rows, header=HEADER, sep=","):
    lines = [header.replace(",", sep)]
    for r in rows:
        lines.append(sep.join(str(r[c]) for c in header.strip().split(",")) + "\n")
    return "".join(lines).encode()


def test_csv_tsv_json_jsonl_give_the_same_items():
    rows = [row(1), row(2, gold="a2")]
    by_format = {
        "csv": csv_bytes(rows),
        "tsv": csv_bytes(rows, sep="\t"),
        "json": json.dumps(rows).encode(),
        "jsonl": "\n".join(json.dumps(r) for r in rows).encode(),
    }
    results = {fmt: parse_items(data, fmt=fmt, task_type=PAIRWISE) for fmt, data in by_format.items()}
    first = [(p.item.external_id, p.item.payload, p.item.gold) for p in results["csv"]]
    assert first[1] == ("p2", first[1][1], "a2")
    assert first[0][1]["arg1"] == {"id": "x1", "text": "first text"}
    for fmt, parsed in results.items():
        assert [(p.item.external_id, p.item.payload, p.item.gold) for p in parsed] == first, fmt


def test_errors_name_the_line_and_field_and_all_are_reported():
    rows = [row(1), row(2, arg1_text=""), row(3), row(4, gold="maybe")]
    with pytest.raises(ImportFailed) as exc:
        parse_items(csv_bytes(rows), fmt="csv", task_type=PAIRWISE)
    messages = [str(e) for e in exc.value.errors]
    assert messages == [
        "line 3, field 'arg1_text': must not be empty",
        "line 5, field 'gold': must be one of a1, a2, equal, got 'maybe'",
    ]


def test_quoted_newlines_keep_line_numbers_right():
    data = (HEADER + 'p1,t,P,s,x1,"multi\nline\ntext",y1,ok,\n' + "p2,t,P,s,x2,fine,x2,same id,\n").encode()
    with pytest.raises(ImportFailed) as exc:
        parse_items(data, fmt="csv", task_type=PAIRWISE)
    assert str(exc.value.errors[0]) == "line 5, field 'arg2_id': must differ from arg1_id ('x2')"


def test_json_errors_name_the_record():
    data = json.dumps([row(1), row(2, topic="  ")]).encode()
    with pytest.raises(ImportFailed) as exc:
        parse_items(data, fmt="json", task_type=PAIRWISE)
    assert str(exc.value.errors[0]) == "record 2, field 'topic': must not be empty"


def test_jsonl_syntax_error_names_the_line():
    data = (json.dumps(row(1)) + "\n\n{not json}\n").encode()
    with pytest.raises(ImportFailed) as exc:
        parse_items(data, fmt="jsonl", task_type=PAIRWISE)
    assert str(exc.value.errors[0]).startswith("line 3: not valid JSON")


def test_duplicate_ids_in_one_file():
    with pytest.raises(ImportFailed) as exc:
        parse_items(csv_bytes([row(1), row(1, arg1_id="z")]), fmt="csv", task_type=PAIRWISE)
    assert str(exc.value.errors[0]) == "line 3, field 'id': duplicate id 'p1' (first on line 2)"


@pytest.mark.parametrize(
    "data,message",
    [
        (b"", "file: the file is empty"),
        (HEADER.encode(), "file: the file holds no records"),
        ((HEADER + "p1,t\n").encode(), "line 2: has 2 fields but the header has 9"),
        (b"\xe9t\xe9\n" + HEADER.encode(), "line 1: the file is not valid UTF-8 (byte 0xe9); save it as UTF-8"),
        (b"\xff\xfe" + HEADER.encode() + b"!", "file: the file starts as UTF-16 but is not valid UTF-16; save it as UTF-8"),
        (b"topic,topic\n1,2\n", "line 1, field 'topic': this column appears more than once"),
    ],
)
def test_broken_files(data, message):
    with pytest.raises(ImportFailed) as exc:
        parse_items(data, fmt="csv", task_type=PAIRWISE)
    assert str(exc.value.errors[0]) == message


@pytest.mark.parametrize("encoding", ["utf-16", "utf-32"])
def test_a_file_saved_as_utf16_or_utf32_with_its_bom_is_read_in_its_encoding(encoding):
    text = HEADER + "p1,t,Prompt,pro,a1,Ünïcödé,a2,B,\n"
    (item,) = parse_items(text.encode(encoding), fmt="csv", task_type=PAIRWISE)
    assert item.item.payload["arg1"]["text"] == "Ünïcödé"


def test_missing_column_is_named():
    header = "topic,prompt,stance,arg1_id,arg1_text,arg2_id\n"
    with pytest.raises(ImportFailed) as exc:
        parse_items((header + "t,P,s,x,text,y\n").encode(), fmt="csv", task_type=PAIRWISE)
    assert str(exc.value.errors[0]) == "line 2, field 'arg2_text': is missing"


def test_utf8_bom_is_accepted():
    parsed = parse_items(b"\xef\xbb\xbf" + csv_bytes([row(1)]), fmt="csv", task_type=PAIRWISE)
    assert parsed[0].item.external_id == "p1"


def test_error_list_is_capped_but_counted():
    rows = [row(i, prompt="") for i in range(80)]
    with pytest.raises(ImportFailed) as exc:
        parse_items(csv_bytes(rows), fmt="csv", task_type=PAIRWISE)
    assert len(exc.value.errors) == 50 and exc.value.total == 80
    assert "… and 30 more errors" in str(exc.value)


@pytest.mark.parametrize("name,fmt", [("a.csv", "csv"), ("a.TSV", "tsv"), ("a.json", "json"), ("a.jsonl", "jsonl"), ("a.ndjson", "jsonl")])
def test_format_from_file_name(name, fmt):
    assert detect_format(name) == fmt


def test_unknown_format_is_refused():
    with pytest.raises(ImportFailed, match="cannot tell the format"):
        detect_format("items.xlsx")
    with pytest.raises(ImportFailed, match="unknown format 'xml'"):
        detect_format("items.csv", "xml")
