"""The shared task's three CSV files, read and checked.

``arguments_<subset>.csv`` (arg_id, argument, topic, stance), ``key_points_<subset>.csv``
(key_point_id, key_point, topic, stance) and ``labels_<subset>.csv`` (arg_id, key_point_id,
label). Ids and texts stay strings (an id such as ``007`` is not a number); stance is 1 or -1 and
a label 0 or 1. Other columns are kept and ignored. Errors name the file, the row (counted as a
spreadsheet counts them: the header is row 1) and the column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

ARGUMENT_COLUMNS = ("arg_id", "argument", "topic", "stance")
KEY_POINT_COLUMNS = ("key_point_id", "key_point", "topic", "stance")
LABEL_COLUMNS = ("arg_id", "key_point_id", "label")
STANCES = (1, -1)
LABELS = (0, 1)


class KeyPointInputError(ValueError):
    """Input the evaluation cannot use; the message names the file (or frame), row and column."""


@dataclass(frozen=True)
class KeyPointData:
    """One subset of the shared task's data, checked (ids as str, stance and label as int)."""

    arguments: pd.DataFrame
    key_points: pd.DataFrame
    labels: pd.DataFrame


def load_data(data_dir: Path, subset: str) -> KeyPointData:
    """Read ``arguments_<subset>.csv``, ``key_points_<subset>.csv`` and ``labels_<subset>.csv``."""
    data_dir = Path(data_dir)
    return KeyPointData(
        arguments=read_arguments(data_dir / f"arguments_{subset}.csv"),
        key_points=read_key_points(data_dir / f"key_points_{subset}.csv"),
        labels=read_labels(data_dir / f"labels_{subset}.csv"),
    )


def read_arguments(path: Path) -> pd.DataFrame:
    """One ``arguments.csv`` file, checked (see :func:`check_arguments`)."""
    return check_arguments(_read(Path(path)), str(path))


def read_key_points(path: Path) -> pd.DataFrame:
    """One ``key_points.csv`` file, checked (see :func:`check_key_points`)."""
    return check_key_points(_read(Path(path)), str(path))


def read_labels(path: Path) -> pd.DataFrame:
    """One ``labels.csv`` file, checked (see :func:`check_labels`)."""
    return check_labels(_read(Path(path)), str(path))


def _read(path: Path) -> pd.DataFrame:
    try:
        return pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8")
    except FileNotFoundError:
        raise KeyPointInputError(f"{path}: no such file") from None
    except OSError as error:
        raise KeyPointInputError(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError:
        raise KeyPointInputError(f"{path}: not UTF-8 text") from None
    except pd.errors.EmptyDataError:
        raise KeyPointInputError(f"{path}: empty file (a header row is needed)") from None
    except pd.errors.ParserError as error:
        raise KeyPointInputError(f"{path}: not a readable CSV file: {error}") from None


def check_arguments(frame: pd.DataFrame, source: str = "arguments") -> pd.DataFrame:
    """The arguments frame with str ids and topics and int stances, or a KeyPointInputError."""
    out = _columns(frame, ARGUMENT_COLUMNS, source)
    _non_empty(out, ("arg_id", "topic"), source)
    out["stance"] = _codes(out["stance"], STANCES, source, "stance")
    _unique(out, ("arg_id",), source)
    if out.empty:
        raise KeyPointInputError(f"{source}: no arguments")
    return out


def check_key_points(frame: pd.DataFrame, source: str = "key_points") -> pd.DataFrame:
    """The key points frame with str ids and topics and int stances, or a KeyPointInputError."""
    out = _columns(frame, KEY_POINT_COLUMNS, source)
    _non_empty(out, ("key_point_id", "topic"), source)
    out["stance"] = _codes(out["stance"], STANCES, source, "stance")
    _unique(out, ("key_point_id",), source)
    return out


def check_labels(frame: pd.DataFrame, source: str = "labels") -> pd.DataFrame:
    """The labels frame with str ids and int labels; one row per (arg_id, key_point_id)."""
    out = _columns(frame, LABEL_COLUMNS, source)
    _non_empty(out, ("arg_id", "key_point_id"), source)
    out["label"] = _codes(out["label"], LABELS, source, "label")
    _unique(out, ("arg_id", "key_point_id"), source)
    return out


def _row(position: int) -> int:
    # Row numbers as a spreadsheet shows them: the header is row 1.
    return position + 2


def _columns(frame: pd.DataFrame, required: Sequence[str], source: str) -> pd.DataFrame:
    missing = [name for name in required if name not in frame.columns]
    if missing:
        raise KeyPointInputError(
            f"{source}: missing column(s) {', '.join(missing)} "
            f"(needs {', '.join(required)}; has {', '.join(map(str, frame.columns))})"
        )
    out = frame.reset_index(drop=True).copy()
    for name in required:
        column = out[name]
        if name not in ("stance", "label"):
            nulls = column.isna().to_numpy()
            if nulls.any():
                position = int(np.flatnonzero(nulls)[0])
                raise KeyPointInputError(f"{source}: row {_row(position)}, column {name}: empty")
            out[name] = column.astype(str)
    return out


def _non_empty(frame: pd.DataFrame, names: Sequence[str], source: str) -> None:
    for name in names:
        column = frame[name]
        blank = (column.eq("") | column.str.isspace()).to_numpy()
        if blank.any():
            position = int(np.flatnonzero(blank)[0])
            raise KeyPointInputError(f"{source}: row {_row(position)}, column {name}: empty")


def _codes(column: pd.Series, allowed: Sequence[int], source: str, name: str) -> pd.Series:
    numbers = pd.to_numeric(column, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isin(numbers, np.asarray(allowed, dtype=float))
    if bad.any():
        position = int(np.flatnonzero(bad)[0])
        raise KeyPointInputError(
            f"{source}: row {_row(position)}, column {name}: {column.iloc[position]!r} is not "
            f"one of {', '.join(map(str, allowed))}"
        )
    return pd.Series(numbers.astype(np.int64), index=column.index, name=name)


def _unique(frame: pd.DataFrame, names: Sequence[str], source: str) -> None:
    repeated = frame.duplicated(subset=list(names), keep="first").to_numpy()
    if repeated.any():
        position = int(np.flatnonzero(repeated)[0])
        key = ", ".join(f"{name} {frame[name].iloc[position]!r}" for name in names)
        raise KeyPointInputError(f"{source}: row {_row(position)}: {key} appears more than once")
