"""Reading a system's track 2 output: its ``key_points.csv`` and its predictions JSON
(``{arg_id: {key_point_id: score}}``), and the ``arguments.csv`` they refer to. A bad file is
refused with a message naming the row or the argument."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from typing import IO

import pandas as pd

from analysis.methods.keypoint_track2 import Predictions, Track2Error
from annotation.importers import ImportFailed, check_length, check_record, decode, read_records
from annotation.task_types import limits
from annotation.task_types.base import FieldError
from task_types.key_points.corpus import COLUMN_LIMITS

ARGUMENT_COLUMNS = ("arg_id", "argument", "topic", "stance")
KEY_POINT_COLUMNS = ("key_point_id", "key_point", "topic", "stance")


@dataclass(frozen=True)
class SystemOutput:
    name: str
    key_points: pd.DataFrame
    predictions: Predictions


def read_table(data: bytes | str | IO[bytes], columns: tuple[str, ...], *, name: str) -> pd.DataFrame:
    """A CSV with (at least) ``columns``, all read as text; stance as 1 or -1. Read and checked
    as imports are (``annotation.importers``): UTF-8 (or UTF-16/32 by its BOM), no NUL, no value
    longer than its column's limit; an error names the file, the line and the field."""
    try:
        text = data if isinstance(data, str) else decode(data)
        records = list(read_records(text, "csv"))
    except ImportFailed as exc:
        raise Track2Error(f"{name} {exc.errors[0]}") from None
    header = list(records[0][1]) if records else [h.strip() for h in next(csv.reader(io.StringIO(text)), [])]
    missing = [c for c in columns if c not in header]
    if missing:
        raise Track2Error(f"{name} lacks the column(s) {', '.join(missing)}")
    for line, record in records:
        try:
            check_record(record)
            for column in columns:
                check_length(column, record[column].strip(), COLUMN_LIMITS.get(column, limits.ANY_TEXT))
        except FieldError as exc:
            raise Track2Error(f"{name} line {line}, field '{exc.field}': {exc.message}") from None
        value, first = record["stance"], record[columns[0]]
        if value.strip() not in ("1", "-1", "1.0", "-1.0"):
            raise Track2Error(f"{name} line {line} ({first}): stance must be 1 or -1, got {value!r}")
        if not first.strip():
            raise Track2Error(f"{name} line {line}: {columns[0]} is empty")
    frame = pd.DataFrame([record for _, record in records], columns=header, dtype=str)
    if frame.empty:
        frame = pd.DataFrame(columns=list(columns), dtype=str)
    frame["stance"] = frame["stance"].map(lambda v: int(float(v)))
    return frame[list(columns)]


def read_predictions(data: bytes | str) -> Predictions:
    """The predictions JSON, checked as track 1 checks it; errors name the argument and key point."""
    from analysis.methods.keypoint_eval import parse_predictions

    try:
        return parse_predictions(data)
    except ValueError as exc:
        raise Track2Error(str(exc)) from None


def read_system(name: str, key_points: bytes | str, predictions: bytes | str) -> SystemOutput:
    if not name.strip():
        raise Track2Error("a system needs a name")
    return SystemOutput(name=name.strip(), key_points=read_table(key_points, KEY_POINT_COLUMNS, name="key_points.csv"),
                        predictions=read_predictions(predictions))
