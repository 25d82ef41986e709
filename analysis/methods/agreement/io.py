"""Reading a long CSV (item, worker, label) for the agreement command line, with errors that name
the file, line and column.

Label syntax: a label is one value (text or a number; when every label is a number they are
compared as numbers). A set-valued answer is written either as options joined by ``|``
(``claim|evidence``) or as a JSON list (``["claim", "evidence"]``); ``[]`` is the empty answer.
In the default ``auto`` mode the file holds sets as soon as one label contains ``|`` or starts
with ``[``; then a label without either is a one-option set. Options are compared as text.
"""

from __future__ import annotations

import bz2
import csv
import gzip
import json
import lzma
import re
from collections.abc import Hashable, Sequence
from pathlib import Path
from typing import IO, Literal

import numpy as np
import pandas as pd

LabelSyntax = Literal["auto", "plain", "sets"]


class InputError(ValueError):
    """A problem with the input file, already phrased for the person who wrote it."""


def default_separator(path: Path) -> str:
    suffixes = [s.lower() for s in path.suffixes]
    return "\t" if ".tsv" in suffixes or ".tab" in suffixes else ","


def read_long_csv(
    path: str | Path,
    *,
    sep: str | None = None,
    columns: tuple[str, str, str] = ("item", "worker", "label"),
    labels: LabelSyntax = "auto",
    numeric_labels_required: bool = False,
    categories: Sequence[str] | None = None,
) -> tuple[pd.DataFrame, list[Hashable] | None]:
    """The long frame of a CSV file and the ``categories`` converted like its labels.

    ``columns`` names the item, worker and label columns in the header (other columns are
    ignored). Raises :class:`InputError` naming the line and column of the first problem.
    """
    path = Path(path)
    sep = sep or default_separator(path)
    header = _header(path, sep)
    missing = [name for name in columns if name not in header]
    if missing:
        raise InputError(
            f"{path}: line 1: missing column(s) {', '.join(repr(m) for m in missing)} in the header "
            f"(found: {', '.join(header) or 'nothing'}); expected {', '.join(columns)}"
        )
    try:
        raw = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, na_filter=False)
    except pd.errors.ParserError as error:
        # pandas counts records (from 1 at the header), not lines: quoted line breaks differ.
        found = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", str(error))
        if found:
            expected, record, saw = (int(g) for g in found.groups())
            line = location(path, sep, record - 2)
            raise InputError(
                f"{path}: {line}: expected {expected} fields like the header, saw {saw}"
            ) from None
        unclosed = re.search(r"EOF inside string starting at row (\d+)", str(error))
        if unclosed:  # rows count from 0 at the header
            line = location(path, sep, int(unclosed.group(1)) - 1)
            raise InputError(f"{path}: {line}: a quoted field is never closed") from None
        raise InputError(f"{path}: cannot parse: {error}") from None
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 text ({error.reason} at byte {error.start})") from None
    if raw.empty:
        raise InputError(f"{path}: no annotations after the header line")
    frame = pd.DataFrame(
        {
            target: raw[name]
            for target, name in zip(("item", "worker", "label"), columns, strict=True)
        }
    )
    for target, name in zip(("item", "worker", "label"), columns, strict=True):
        empty = np.flatnonzero((frame[target] == "").to_numpy())
        if empty.size:
            raise InputError(
                f"{path}: {location(path, sep, int(empty[0]))}, column {name!r}: empty value"
            )
    codes, label_values = pd.factorize(frame["label"])
    uniques = [str(u) for u in label_values]
    as_sets = labels == "sets" or (
        labels == "auto" and any(u.startswith("[") or "|" in u for u in uniques)
    )

    def where(unique: int) -> str:
        return f"{path}: {location(path, sep, int(np.flatnonzero(codes == unique)[0]))}, column {columns[2]!r}"

    if as_sets:
        parsed = []
        for index, text in enumerate(uniques):
            try:
                parsed.append(parse_set_label(text))
            except ValueError as error:
                raise InputError(f"{where(index)}: {error}") from None
        frame["label"] = pd.Series(np.array(parsed, dtype=object)[codes], index=frame.index)
        return frame, None
    numbers = pd.to_numeric(pd.Series(uniques), errors="coerce").to_numpy(dtype=float)
    numeric = bool(np.isfinite(numbers).all())
    if numeric_labels_required and not numeric:
        bad = int(np.flatnonzero(~np.isfinite(numbers))[0])
        raise InputError(
            f"{where(bad)}: {uniques[bad]!r} is not a number (this level needs numeric labels)"
        )
    if numeric:
        values = _as_numbers(numbers)
        frame["label"] = pd.Series(values[codes], index=frame.index)
        if categories is not None:
            converted = pd.to_numeric(pd.Series(list(categories)), errors="coerce").to_numpy(
                dtype=float
            )
            if not np.isfinite(converted).all():
                raise InputError("--categories must be numbers when the labels are numbers")
            categories = list(_as_numbers(converted))
    return frame, list(categories) if categories is not None else None


def parse_set_label(text: str) -> frozenset[str]:
    """``a|b|c`` or a JSON list ``["a", "b"]`` as a frozenset of option texts."""
    text = text.strip()
    if text.startswith("["):
        try:
            options = json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(f"{text!r} is not a JSON list ({error.msg})") from None
        if not isinstance(options, list) or any(isinstance(o, list | dict) for o in options):
            raise ValueError(f"{text!r} is not a flat JSON list of options")
        return frozenset(o if isinstance(o, str) else json.dumps(o) for o in options)
    return frozenset(part.strip() for part in text.split("|") if part.strip())


def _as_numbers(values: np.ndarray) -> np.ndarray:
    if (values == np.round(values)).all() and np.abs(values).max(initial=0) < 2**53:
        return values.astype(np.int64)
    return values


def _open_text(path: Path) -> IO[str]:
    suffix = path.suffix.lower()
    if suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8", newline="")
    if suffix == ".bz2":
        return bz2.open(path, "rt", encoding="utf-8", newline="")
    if suffix == ".xz":
        return lzma.open(path, "rt", encoding="utf-8", newline="")
    return open(path, encoding="utf-8", newline="")


def _header(path: Path, sep: str) -> list[str]:
    try:
        with _open_text(path) as handle:
            header = next(csv.reader(handle, delimiter=sep), None)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read: {error}") from None
    if not header or not any(field.strip() for field in header):
        raise InputError(
            f"{path}: empty file: expected a header line naming item, worker and label columns"
        )
    return [field.strip() for field in header]


def location(path: Path, sep: str, row: int) -> str:
    """``line N`` of data row ``row`` (0-based, header excluded), counting quoted line breaks."""
    with _open_text(path) as handle:
        reader = csv.reader(handle, delimiter=sep)
        next(reader, None)
        start = reader.line_num + 1
        seen = -1
        for record in reader:
            if record:  # pandas skips blank lines; so does the row count
                seen += 1
                if seen == row:
                    return f"line {start}"
            start = reader.line_num + 1
    return f"data row {row + 1}"
