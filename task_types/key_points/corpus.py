"""The KPA 2021 shared task's files (ArgKP): arguments, key points and labels, read into import
records and written back in the same format.

``arguments.csv`` (arg_id, argument, topic, stance), ``key_points.csv`` (key_point_id, key_point,
topic, stance) and ``labels.csv`` (arg_id, key_point_id, label); the release names them with a
subset (``arguments_dev.csv``). A record is one argument with every key point of its topic and
stance, in the key-point file's order, and as gold the labels the labels file gives it. Every row
of the three files is checked before anything is built: the errors name file, line and field.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from annotation.importers import (
    ImportFailed,
    RowError,
    check_length,
    check_record,
    decode,
    read_records,
)
from annotation.spreadsheet import safe_row
from annotation.task_types import limits
from annotation.task_types.base import FieldError

FOLDER = "kpa_2021"
STANCES = (1, -1)
ARGUMENT_COLUMNS = ("arg_id", "argument", "topic", "stance")
KEY_POINT_COLUMNS = ("key_point_id", "key_point", "topic", "stance")
LABEL_COLUMNS = ("arg_id", "key_point_id", "label")
MAX_ERRORS = 50
Source = bytes | str | Path | IO[bytes]


def file_names(subset: str = "") -> dict[str, str]:
    """The three files' names: ``arguments.csv`` …, or ``arguments_dev.csv`` … for a subset."""
    tail = f"_{subset}" if subset else ""
    return {"arguments": f"arguments{tail}.csv", "key_points": f"key_points{tail}.csv", "labels": f"labels{tail}.csv"}


def parse_stance(value: Any) -> int:
    """1 or -1 (also given as "1", "-1", "+1", 1.0); ValueError otherwise."""
    text = str(value).strip()
    try:
        number = float(text)
    except ValueError:
        raise ValueError(f"unknown stance {text!r}: must be 1 or -1") from None
    if number not in STANCES:
        raise ValueError(f"unknown stance {text!r}: must be 1 or -1")
    return int(number)


@dataclass(frozen=True)
class KeyPointCorpus:
    arguments: list[dict[str, Any]]  # arg_id, argument, topic, stance (int), line, in file order
    key_points: list[dict[str, Any]]  # key_point_id, key_point, topic, stance, in file order
    labels: dict[tuple[str, str], int]  # (arg_id, key_point_id) → 0 | 1, in file order

    def key_points_of(self) -> dict[tuple[str, int], list[dict[str, Any]]]:
        groups: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
        for kp in self.key_points:
            groups[(kp["topic"], kp["stance"])].append(kp)
        return groups

    def records(self) -> list[dict[str, Any]]:
        """One import record per argument: the argument, its topic and stance, every key point of
        the same topic and stance, and its labels as gold (none when the labels file has none)."""
        groups = self.key_points_of()
        gold: dict[str, dict[str, int]] = defaultdict(dict)
        for (arg_id, kp_id), label in self.labels.items():
            gold[arg_id][kp_id] = label
        return [
            {"id": a["arg_id"], "topic": a["topic"], "stance": a["stance"], "argument": a["argument"],
             "key_points": [{"id": kp["key_point_id"], "text": kp["key_point"]}
                            for kp in groups[(a["topic"], a["stance"])]],
             **({"gold": gold[a["arg_id"]]} if a["arg_id"] in gold else {})}
            for a in self.arguments
        ]


class _Errors:
    def __init__(self) -> None:
        self.errors: list[RowError] = []
        self.total = 0

    def add(self, name: str, line: int | None, field: str | None, message: str) -> None:
        self.total += 1
        if len(self.errors) < MAX_ERRORS:
            self.errors.append(RowError(line, field, message, unit=f"{name} line"))

    def raise_any(self) -> None:
        if self.total:
            raise ImportFailed(self.errors, total=self.total)


# How long each column's values may be (annotation.task_types.limits); stance and label are
# checked for their values.
COLUMN_LIMITS = {"arg_id": limits.ID, "key_point_id": limits.ID, "argument": limits.ARGUMENT,
                 "key_point": limits.KEY_POINT, "topic": limits.TOPIC}


def _rows(source: Source, name: str, columns: Sequence[str], errors: _Errors) -> list[tuple[int, dict[str, str]]]:
    """(line, row) of a CSV file with these columns, each value checked (no NUL, not too long);
    a missing column is an error of line 1, an unreadable file one of the line it fails on."""
    try:
        text = source if isinstance(source, str) else decode(source)
        records = list(read_records(text, "csv"))
    except ImportFailed as exc:
        for error in exc.errors:
            errors.add(name, error.line, error.field, error.message)
        return []
    header = list(records[0][1]) if records else [h.strip() for h in next(csv.reader(io.StringIO(text)), [])]
    missing = [c for c in columns if c not in header]
    for column in missing:
        errors.add(name, 1, column, f"missing column (the file needs {', '.join(columns)})")
    if missing:
        return []
    rows = []
    for line, record in records:
        try:
            check_record(record)
            for column in columns:
                check_length(column, record[column].strip(), COLUMN_LIMITS.get(column, limits.ANY_TEXT))
        except FieldError as exc:
            errors.add(name, line, exc.field, exc.message)
            continue
        rows.append((line, {k: (v or "").strip() for k, v in record.items()}))
    return rows


def _stance(row: Mapping[str, str], name: str, line: int, errors: _Errors) -> int | None:
    try:
        return parse_stance(row["stance"])
    except ValueError as exc:
        errors.add(name, line, "stance", str(exc))
        return None


def read_corpus(arguments: Source, key_points: Source, labels: Source | None = None, *,
                names: Mapping[str, str] | None = None) -> KeyPointCorpus:
    """Read and check the three files (labels optional); raise ImportFailed naming file, line
    and field of every problem (up to MAX_ERRORS of them)."""
    names = {**file_names(), **(names or {})}
    errors = _Errors()
    args: list[dict[str, Any]] = []
    seen_args: dict[str, int] = {}
    name = names["arguments"]
    for line, row in _rows(arguments, name, ARGUMENT_COLUMNS, errors):
        stance = _stance(row, name, line, errors)
        for field in ("arg_id", "argument", "topic"):
            if not row[field]:
                errors.add(name, line, field, "is empty")
        if row["arg_id"] in seen_args:
            errors.add(name, line, "arg_id", f"duplicate id {row['arg_id']!r} (first on line {seen_args[row['arg_id']]})")
            continue
        seen_args[row["arg_id"]] = line
        if stance is not None:
            args.append({"arg_id": row["arg_id"], "argument": row["argument"], "topic": row["topic"], "stance": stance,
                         "line": line})
    groups = {(a["topic"], a["stance"]) for a in args}
    # A bad arguments file would make every key point of its groups look orphaned: say it once.
    arguments_clean = not errors.total
    by_arg = {a["arg_id"]: a for a in args}

    kps: list[dict[str, Any]] = []
    seen_kps: dict[str, int] = {}
    name = names["key_points"]
    for line, row in _rows(key_points, name, KEY_POINT_COLUMNS, errors):
        stance = _stance(row, name, line, errors)
        for field in ("key_point_id", "key_point", "topic"):
            if not row[field]:
                errors.add(name, line, field, "is empty")
        if row["key_point_id"] in seen_kps:
            errors.add(name, line, "key_point_id",
                       f"duplicate id {row['key_point_id']!r} (first on line {seen_kps[row['key_point_id']]})")
            continue
        seen_kps[row["key_point_id"]] = line
        if stance is None:
            continue
        if (row["topic"], stance) not in groups and arguments_clean:
            errors.add(name, line, "topic", f"no argument has topic {row['topic']!r} and stance {stance}")
            continue
        kps.append({"key_point_id": row["key_point_id"], "key_point": row["key_point"], "topic": row["topic"],
                    "stance": stance})
    covered = {(kp["topic"], kp["stance"]) for kp in kps}
    name = names["arguments"]
    uncovered: dict[tuple[str, int], int] = {}
    for a in args:
        if (a["topic"], a["stance"]) not in covered and not errors.total:
            uncovered.setdefault((a["topic"], a["stance"]), seen_args[a["arg_id"]])
    for (topic, stance), line in uncovered.items():  # once per topic and stance, at its first argument
        errors.add(name, line, "topic", f"no key point has topic {topic!r} and stance {stance}")

    found: dict[tuple[str, str], int] = {}
    by_kp = {kp["key_point_id"]: kp for kp in kps}
    if labels is not None:
        name = names["labels"]
        seen_pairs: dict[tuple[str, str], int] = {}
        for line, row in _rows(labels, name, LABEL_COLUMNS, errors):
            arg, kp = by_arg.get(row["arg_id"]), by_kp.get(row["key_point_id"])
            if arg is None:
                errors.add(name, line, "arg_id", f"unknown argument {row['arg_id']!r}")
            if kp is None:
                errors.add(name, line, "key_point_id", f"unknown key point {row['key_point_id']!r}")
            if row["label"] not in ("0", "1"):
                errors.add(name, line, "label", f"must be 0 or 1, got {row['label']!r}")
            pair = (row["arg_id"], row["key_point_id"])
            if pair in seen_pairs:
                errors.add(name, line, "key_point_id", f"duplicate pair (first on line {seen_pairs[pair]})")
            seen_pairs[pair] = line
            if arg is None or kp is None or row["label"] not in ("0", "1"):
                continue
            if (arg["topic"], arg["stance"]) != (kp["topic"], kp["stance"]):
                errors.add(name, line, "key_point_id", "the key point is not of the argument's topic and stance")
                continue
            found[pair] = int(row["label"])
    errors.raise_any()
    return KeyPointCorpus(arguments=args, key_points=kps, labels=found)


def read_folder(folder: Path, subset: str = "") -> KeyPointCorpus:
    """The three files of a subset in ``folder`` (``labels_<subset>.csv`` is optional)."""
    names = file_names(subset)
    missing = [n for key, n in names.items() if key != "labels" and not (folder / n).is_file()]
    if missing:
        raise ImportFailed([RowError(None, None, f"{folder} has no {' and no '.join(missing)}")])
    labels = folder / names["labels"]
    return read_corpus(folder / names["arguments"], folder / names["key_points"],
                       labels if labels.is_file() else None, names=names)


# --- writing ------------------------------------------------------------------------------------


def csv_text(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> str:
    """A CSV file as the shared task wrote it (pandas' ``to_csv``: minimal quoting, ``\\n``), its
    cells safe for spreadsheets (``annotation.spreadsheet``): an argument starting with ``=`` gets
    a leading quote, numbers such as the stance ``-1`` stay as they are."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(columns), lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    writer.writerows(safe_row(row) for row in rows)
    return out.getvalue()


def corpus_rows(payloads: Iterable[Mapping[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """arguments.csv and key_points.csv rows of items' payloads: arguments in item order, key
    points by the first item of their topic and stance, in the payload's order."""
    arguments, key_points, seen = [], [], set()
    for p in payloads:
        arguments.append({"arg_id": p["id"], "argument": p["argument"], "topic": p["topic"], "stance": p["stance"]})
        for kp in p["key_points"]:
            if kp["id"] not in seen:
                seen.add(kp["id"])
                key_points.append({"key_point_id": kp["id"], "key_point": kp["text"], "topic": p["topic"],
                                   "stance": p["stance"]})
    return arguments, key_points
