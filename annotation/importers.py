"""Parse and validate uploaded files into clean records. No database access here.

Every error names where it happened: the line of a CSV/TSV/JSONL file (the line a record starts
on, since quoted fields may span lines) or the position of a record in a JSON array, and the
field. Parsing collects errors across the whole file so that one upload shows all of them.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import IO, Any

from django.conf import settings

from annotation.gold_columns import clean_check_columns, split_check_columns
from annotation.import_decoding import GZIP_MAGIC, decode
from annotation.import_errors import ImportFailed, RowError
from annotation.task_types import limits
from annotation.task_types.base import CleanItem, FieldError, TaskType
from annotation.task_types.gold import CleanGold
from annotation.value_checks import text_problem, value_problem

# ImportFailed, RowError, decode and GZIP_MAGIC are imported from here by the importers' callers.
__all__ = ["GZIP_MAGIC", "ImportFailed", "ParsedItem", "RowError", "decode"]
FORMATS = ("csv", "tsv", "json", "jsonl")
MAX_REPORTED_ERRORS = 50
# progress(fraction, stage): how long jobs report how far they got.
Progress = Callable[[float, str], None]
# Records read between two progress reports.
PROGRESS_EVERY = 5000
# Length of the column item ids go to (task types' own records of the same kind take it too).
# SQLite ignores it; PostgreSQL refuses longer text.
ID_MAX_LENGTH = 200
# Python refuses to read integers with more digits than this (sys.get_int_max_str_digits()).
_LONG_NUMBER = re.compile(r"\d{4301,}")


@dataclass(frozen=True)
class ParsedItem:
    line: int
    item: CleanItem
    # real, gold or training; a gold or training item has its known answer and explanation.
    kind: str = "real"
    gold_answer: CleanGold | None = None
    explanation: str = ""

    @property
    def is_check(self) -> bool:
        return self.kind != "real"


def detect_format(filename: str, declared: str | None = None) -> str:
    if declared:
        fmt = declared.lower().lstrip(".")
        if fmt == "ndjson":
            fmt = "jsonl"
        if fmt not in FORMATS:
            raise ImportFailed([RowError(None, "format", f"unknown format {declared!r}; use one of {', '.join(FORMATS)}")])
        return fmt
    name = filename.lower().removesuffix(".gz")
    for ext, fmt in ((".jsonl", "jsonl"), (".ndjson", "jsonl"), (".json", "json"),
                     (".tsv", "tsv"), (".tab", "tsv"), (".csv", "csv")):
        if name.endswith(ext):
            return fmt
    raise ImportFailed(
        [RowError(None, "format", f"cannot tell the format of {filename!r}; name it .csv, .tsv, .json or .jsonl or say the format")]
    )


def read_records(text: str, fmt: str, *, progress: Progress | None = None) -> Iterator[tuple[int, Mapping[str, Any]]]:
    """Yield (line or record number, record) pairs; raises ImportFailed on unreadable structure.
    ``progress`` hears every few thousand records how far into the file the reading is."""
    if progress is None:
        yield from _records(text, fmt)
        return
    lines = text.count("\n") + 1
    for n, (number, record) in enumerate(_records(text, fmt), start=1):
        if n % PROGRESS_EVERY == 0:
            where = f"record {number:,}" if fmt == "json" else f"line {number:,} of {lines:,}"
            progress(min(number / lines, 1.0) if fmt != "json" else 0.5, f"checking {where}")
        yield number, record


def _records(text: str, fmt: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    if fmt in ("csv", "tsv"):
        yield from _read_delimited(text, "\t" if fmt == "tsv" else ",")
    elif fmt == "jsonl":
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except (ValueError, RecursionError) as exc:
                raise ImportFailed([_json_error(exc, line, number)]) from None
            if not isinstance(record, dict):
                raise ImportFailed([RowError(number, None, "each line must be a JSON object")])
            yield number, record
    elif fmt == "json":
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ImportFailed([_json_error(exc, text, None)]) from None
        if isinstance(data, dict) and isinstance(data.get("items"), list):
            data = data["items"]
        if not isinstance(data, list):
            raise ImportFailed([RowError(None, None, "a JSON file must hold a list of objects (or {\"items\": [...]})")])
        for number, record in enumerate(data, start=1):
            if not isinstance(record, dict):
                raise ImportFailed([RowError(number, None, "must be a JSON object", unit="record")])
            yield number, record
    else:  # pragma: no cover - detect_format guards this
        raise ValueError(fmt)


def _json_error(exc: Exception, text: str, line: int | None) -> RowError:
    """Where and why JSON could not be read; ``line`` is known for JSONL, found for JSON."""
    if isinstance(exc, json.JSONDecodeError):
        return RowError(line or exc.lineno, None, f"not valid JSON: {exc.msg} (column {exc.colno})")
    if isinstance(exc, RecursionError):
        return RowError(line, None, "not readable: the JSON is nested too deeply")
    long_number = _LONG_NUMBER.search(text)
    if long_number:
        line = line or text.count("\n", 0, long_number.start()) + 1
        return RowError(line, None, "holds a number with more than 4300 digits")
    return RowError(line, None, f"not readable: {exc}")


def check_record(record: Mapping[str, Any]) -> None:
    """Raise FieldError if a raw record holds a value the database would refuse or change
    (annotation.value_checks): the same rule for every format and both databases."""
    # The usual record, text read from CSV or TSV, is checked as one text: the rule for text
    # holds for every part of it exactly when it holds for all of them joined.
    try:
        joined = "".join([*record, *record.values()])
    except TypeError:  # not all text (JSON): value by value
        joined = None
    if joined is not None and text_problem(joined) is None and len(joined) <= limits.ANY_TEXT:
        return
    problem = value_problem(record) or _long_text(record)
    if problem:
        raise FieldError(*problem)


def _long_text(value: Any, path: str = "") -> tuple[str, str] | None:
    """(path, message) of the first text in a record (a value or a field's name) longer than
    ``limits.ANY_TEXT``, or None."""
    if isinstance(value, str):
        if len(value) > limits.ANY_TEXT:
            return path, f"is {len(value):,} characters long; an imported text may have at most {limits.ANY_TEXT:,}"
        return None
    children: Iterable[tuple[str, Any]]
    if isinstance(value, Mapping):
        for key in value:
            if len(str(key)) > limits.ANY_TEXT:
                return path, f"holds a field name longer than {limits.ANY_TEXT:,} characters"
        children = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
    elif isinstance(value, list | tuple):
        children = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for where, child in children:
        found = _long_text(child, where)
        if found:
            return found
    return None


def check_length(field: str, value: str, limit: int) -> None:
    if len(value) > limit:
        raise FieldError(field, f"is {len(value):,} characters long; at most {limit:,} fit")


def check_clean_item(item: CleanItem) -> None:
    """What every task type's item must satisfy to be stored alike on both databases."""
    problem = text_problem(item.external_id)
    if problem:
        raise FieldError("id", problem)
    check_length("id", item.external_id, ID_MAX_LENGTH)
    for field, value in (("payload", item.payload), ("gold", item.gold)):
        found = value_problem(value)
        if found:
            path, message = found
            raise FieldError(path or field, message)


def _read_delimited(text: str, delimiter: str) -> Iterator[tuple[int, Mapping[str, Any]]]:
    # Python's csv module refuses a field over 128 KB with an error that names no field; with the
    # whole file allowed, the field's length is checked with the rest (check_record), by name.
    if csv.field_size_limit() < len(text):
        csv.field_size_limit(max(len(text), settings.IMPORT_MAX_DECOMPRESSED_BYTES))
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    start = 1
    try:
        try:
            header = next(reader)
        except StopIteration:
            raise ImportFailed([RowError(None, None, "the file is empty")]) from None
        header = [h.strip() for h in header]
        if not any(header):
            raise ImportFailed([RowError(1, None, "the first line must name the columns")])
        duplicated = sorted({h for h in header if h and header.count(h) > 1})
        if duplicated:
            raise ImportFailed([RowError(1, duplicated[0], "this column appears more than once")])
        start = reader.line_num + 1
        for row in reader:
            if not "".join(row).strip():
                start = reader.line_num + 1
                continue
            if len(row) != len(header):
                raise ImportFailed(
                    [RowError(start, None, f"has {len(row)} fields but the header has {len(header)}"
                              + (" (a quote left open on this line runs to a later one)"
                                 if reader.line_num > start else ""))]
                )
            yield start, dict(zip(header, row, strict=True))
            start = reader.line_num + 1
    except csv.Error as exc:
        raise ImportFailed([RowError(start, None, f"unreadable: {exc}")]) from None


def read_csv_file(path: Path, *, columns: Sequence[str] = ()) -> list[tuple[int, dict[str, str]]]:
    """(line, row) of a CSV file of a published corpus (a release's file read from a folder),
    read and checked as an upload is: the encodings ``decode`` reads, its size limit, no NUL,
    no text over ``limits.ANY_TEXT``, and these ``columns`` present. Raises ImportFailed whose
    errors name the file, the line and the field (all the bad rows, up to MAX_REPORTED_ERRORS)."""
    unit = f"{path.name} line"

    def named(errors: Iterable[RowError]) -> list[RowError]:
        return [RowError(e.line, e.field, e.message, unit=unit) for e in errors]

    if not path.is_file():
        raise ImportFailed([RowError(None, None, f"{path} is missing")])
    try:
        text = decode(path)
        records = list(read_records(text, "csv"))
    except ImportFailed as exc:
        raise ImportFailed(named(exc.errors), total=exc.total) from None
    header = list(records[0][1]) if records else []
    missing = [c for c in columns if c not in header]
    if missing:
        raise ImportFailed([RowError(1, c, "missing column", unit=unit) for c in missing])
    rows: list[tuple[int, dict[str, str]]] = []
    errors: list[RowError] = []
    total = 0
    for line, record in records:
        try:
            check_record(record)
        except FieldError as exc:
            total += 1
            if len(errors) < MAX_REPORTED_ERRORS:
                errors.append(RowError(line, exc.field, exc.message, unit=unit))
            continue
        rows.append((line, {str(k): str(v) for k, v in record.items()}))
    if errors:
        raise ImportFailed(errors, total=total)
    return rows


def parse_items(data: bytes | IO[bytes], *, fmt: str, task_type: TaskType, progress: Progress | None = None) -> list[ParsedItem]:
    """Decode, parse and validate a whole file; raise ImportFailed listing every bad row."""
    text = decode(data)
    unit = "record" if fmt == "json" else "line"
    errors: list[RowError] = []
    n_errors = 0
    parsed: list[ParsedItem] = []
    first_line: dict[str, int] = {}
    for line, record in read_records(text, fmt, progress=progress):
        try:
            check_record(record)
            fields, columns = split_check_columns(record)
            item = task_type.clean_item(fields)
            check_clean_item(item)
            kind, gold_answer, explanation = (clean_check_columns(columns, item=item, task_type=task_type)
                                              if columns else ("real", None, ""))
        except FieldError as exc:
            n_errors += 1
            if len(errors) < MAX_REPORTED_ERRORS:
                errors.append(RowError(line, exc.field, exc.message, unit=unit))
            continue
        if item.external_id in first_line:
            n_errors += 1
            if len(errors) < MAX_REPORTED_ERRORS:
                errors.append(RowError(
                    line, "id",
                    f"duplicate id {item.external_id!r} (first on {unit} {first_line[item.external_id]})",
                    unit=unit,
                ))
            continue
        first_line[item.external_id] = line
        parsed.append(ParsedItem(line=line, item=item, kind=kind, gold_answer=gold_answer, explanation=explanation))
    if errors:
        raise ImportFailed(errors, total=n_errors)
    if not parsed:
        raise ImportFailed([RowError(None, None, "the file holds no records")])
    return parsed


def clean_records(records: Iterable[tuple[int, Mapping[str, Any]]], *, task_type: TaskType,
                  unit: str) -> list[ParsedItem]:
    """Records a task type's own reader made (numbered by their place, which errors call
    ``unit``), cleaned into items; raises ImportFailed listing every bad one."""
    parsed: list[ParsedItem] = []
    errors: list[RowError] = []
    for number, record in records:
        try:
            parsed.append(ParsedItem(number, task_type.clean_item(record)))
        except FieldError as exc:
            errors.append(RowError(number, exc.field, exc.message, unit=unit))
    if errors:
        raise ImportFailed(errors[:MAX_REPORTED_ERRORS], total=len(errors))
    return parsed


# Time zones MTurk writes by name ("Sun Jan 31 08:53:19 PST 2016").
_ZONES = {"UTC": 0, "GMT": 0, "PST": -8, "PDT": -7, "MST": -7, "MDT": -6, "CST": -6, "CDT": -5,
          "EST": -5, "EDT": -4, "CET": 1, "CEST": 2}
_MTURK_TIME = re.compile(r"^\w{3} (\w{3} +\d{1,2} \d{2}:\d{2}:\d{2}) (\w{3,4}) (\d{4})$")


def parse_time(value: Any) -> datetime | None:
    """A timestamp as crowd platforms write it: ISO 8601, ``2016-01-31 16:53:19.0 UTC`` or
    MTurk's ``Sun Jan 31 08:53:19 PST 2016``; times without a zone are UTC. Empty gives None."""
    text = str(value or "").strip()
    if not text:
        return None
    # MTurk's format has a space after the day's name, ISO 8601 a digit after three of the year's.
    match = _MTURK_TIME.match(text) if text[3:4] == " " else None
    if match and match.group(2) in _ZONES:
        moment = datetime.strptime(f"{match.group(1)} {match.group(3)}", "%b %d %H:%M:%S %Y")
        return moment.replace(tzinfo=timezone(timedelta(hours=_ZONES[match.group(2)])))
    before, _, name = text.rpartition(" ")
    if before and name in _ZONES:
        hours = _ZONES[name]
        text = before + ("+00:00" if hours == 0 else f"{hours:+03d}:00")
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"not a time I can read: {value!r}") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
