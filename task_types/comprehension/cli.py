"""Comprehension questions as an import file (JSON lines), from a corpus of speeches and titles
(each a CSV file or a JSON list) or from the IBM Debater Recorded Debating Dataset V4:

    python -m task_types.comprehension.cli corpus speeches.csv titles.csv > items.jsonl
    python -m task_types.comprehension.cli ibm ../shared/data/ibm_recorded_debating_v4 > items.jsonl

Speeches have ``id``, ``motion_id``, ``motion``, ``speaker``, ``stance`` (pro or con), ``audio``,
``transcript``, ``asr_transcript`` and ``sentences`` (a JSON list; default: split from the
transcript); titles have ``id``, ``motion_id``, ``stance``, ``title`` and ``text``. A command-line
tool, not a task type: the registry does not import it.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

from task_types.comprehension.corpus import ibm_questions, questions_from_corpus


def read_rows(path: Path) -> list[dict[str, Any]]:
    """A JSON list of objects, or a CSV (TSV) file with a header row."""
    text = path.read_text(encoding="utf-8-sig")
    if path.suffix.lower() == ".json":
        rows = json.loads(text)
        if not isinstance(rows, list):
            raise SystemExit(f"{path}: expected a JSON list of objects")
        return rows
    dialect = "excel-tab" if path.suffix.lower() == ".tsv" else "excel"
    rows = list(csv.DictReader(text.splitlines(), dialect=dialect))
    for row in rows:
        if row.get("sentences"):
            row["sentences"] = json.loads(row["sentences"])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m task_types.comprehension.cli",
                                     description="Write comprehension questions as JSON lines for the item import.")
    sub = parser.add_subparsers(dest="source", required=True)
    ibm = sub.add_parser("ibm", help="from the IBM Debater Recorded Debating Dataset V4 folder")
    ibm.add_argument("folder", type=Path)
    corpus = sub.add_parser("corpus", help="from speeches and titles, each a CSV file or a JSON list")
    corpus.add_argument("speeches", type=Path)
    corpus.add_argument("titles", type=Path)
    args = parser.parse_args(argv)
    if args.source == "ibm":
        records = ibm_questions(args.folder)
    else:
        records = questions_from_corpus(read_rows(args.speeches), read_rows(args.titles))
    for record in records:
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
