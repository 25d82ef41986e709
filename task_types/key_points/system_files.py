"""Reading a system's track 2 output: its ``key_points.csv`` and its predictions JSON
(``{arg_id: {key_point_id: score}}``), and the ``arguments.csv`` they refer to. A bad file is
refused with a message naming the row or the argument."""

from __future__ import annotations

import io
from dataclasses import dataclass

import pandas as pd

from analysis.methods.keypoint_track2 import Predictions, Track2Error

ARGUMENT_COLUMNS = ("arg_id", "argument", "topic", "stance")
KEY_POINT_COLUMNS = ("key_point_id", "key_point", "topic", "stance")


@dataclass(frozen=True)
class SystemOutput:
    name: str
    key_points: pd.DataFrame
    predictions: Predictions


def _text(data: bytes | str) -> str:
    return data.decode("utf-8-sig") if isinstance(data, bytes) else data


def read_table(data: bytes | str, columns: tuple[str, ...], *, name: str) -> pd.DataFrame:
    """A CSV with (at least) ``columns``, all read as text; stance as 1 or -1."""
    try:
        frame = pd.read_csv(io.StringIO(_text(data)), dtype=str, keep_default_na=False)
    except (ValueError, pd.errors.ParserError) as exc:
        raise Track2Error(f"{name}: not a CSV file ({exc})") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise Track2Error(f"{name} lacks the column(s) {', '.join(missing)}")
    for number, (value, first) in enumerate(zip(frame["stance"], frame[columns[0]], strict=True), 2):
        if value.strip() not in ("1", "-1", "1.0", "-1.0"):
            raise Track2Error(f"{name} row {number} ({first}): stance must be 1 or -1, got {value!r}")
        if not first.strip():
            raise Track2Error(f"{name} row {number}: {columns[0]} is empty")
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
