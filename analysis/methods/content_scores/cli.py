"""Content scores of a responses file against a references file, one JSON object per line.

Usage::

    python -m analysis.methods.content_scores REFERENCES.csv RESPONSES.csv [--references 4]
        [--lemmatize] [--stopwords] [--stem] [--sep ,]

REFERENCES.csv has a header naming ``prompt_id, reference_id, text``; RESPONSES.csv one naming
``response_id, prompt_id, text`` (other columns are ignored; ``.tsv`` files are tab-separated,
``.gz``/``.bz2``/``.xz`` are decompressed). Every value is read as text, so prompt ids match as
written. The output has one line per response, in the file's order:
``{"response_id": "…", "base": …, "new": …, "cva": …}``. Bad input — a missing column, an empty id,
a repeated id, a response whose prompt has no reference — exits with status 2 and one line
naming the file, line and column.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from analysis.methods.agreement.io import InputError, default_separator, location
from analysis.methods.content_scores.scores import (
    REFERENCE_COLUMNS,
    RESPONSE_COLUMNS,
    ContentScoreError,
    content_scores,
)

_PROG = "python -m analysis.methods.content_scores"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=_PROG,
        description="ROUGE-1 (base, new) and TF-IDF cosine (cva) content scores of responses.",
    )
    parser.add_argument("references", type=Path, help="CSV with prompt_id, reference_id, text")
    parser.add_argument("responses", type=Path, help="CSV with response_id, prompt_id, text")
    parser.add_argument(
        "--references",
        dest="k",
        type=int,
        default=4,
        metavar="K",
        help="references per prompt for new and cva, the first K in file order (4)",
    )
    parser.add_argument(
        "--lemmatize", action="store_true", help="English lemmas (simplemma), before the others"
    )
    parser.add_argument(
        "--stem", action="store_true", help="Porter stemming (words over 3 letters)"
    )
    parser.add_argument(
        "--stopwords", action="store_true", help="drop scikit-learn's English stop words"
    )
    parser.add_argument("--sep", help="field separator (default: tab for .tsv, else comma)")
    return parser


def read_table(path: Path, columns: tuple[str, ...], *, sep: str) -> pd.DataFrame:
    """The named columns of a CSV file, every value as text; ids must not be empty."""
    try:
        frame = pd.read_csv(path, sep=sep, dtype=str, keep_default_na=False, na_filter=False)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except pd.errors.EmptyDataError:
        raise InputError(
            f"{path}: empty file: expected a header line naming {', '.join(columns)}"
        ) from None
    except pd.errors.ParserError as error:
        raise InputError(f"{path}: not a valid CSV file: {str(error).strip()}") from None
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read: {error}") from None
    frame.columns = [str(column).strip() for column in frame.columns]
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise InputError(
            f"{path}: line 1: missing column(s) {', '.join(repr(m) for m in missing)} in the header "
            f"(found: {', '.join(frame.columns) or 'nothing'}); expected {', '.join(columns)}"
        )
    frame = frame[list(columns)].reset_index(drop=True)
    for column in columns:
        if column == "text":
            continue
        empty = frame[column].str.strip() == ""
        if empty.any():
            row = int(empty.to_numpy().nonzero()[0][0])
            raise InputError(
                f"{path}: {location(path, sep, row)}, column {column!r}: empty {column}"
            )
    return frame


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.k < 1:
        parser.error("--references must be at least 1")
    paths = {"references": args.references, "responses": args.responses}
    seps = {name: args.sep or default_separator(path) for name, path in paths.items()}
    try:
        references = read_table(args.references, REFERENCE_COLUMNS, sep=seps["references"])
        responses = read_table(args.responses, RESPONSE_COLUMNS, sep=seps["responses"])
        scores = content_scores(
            references=references,
            responses=responses,
            k=args.k,
            stem=args.stem,
            stopwords=args.stopwords,
            lemmatize=args.lemmatize,
        )
    except InputError as error:
        print(f"content_scores: error: {error}", file=sys.stderr)
        return 2
    except ContentScoreError as error:
        path, sep = paths[error.table], seps[error.table]
        where = location(path, sep, error.row) if error.row is not None else "input"
        column = f", column {error.column!r}" if error.column else ""
        print(f"content_scores: error: {path}: {where}{column}: {error.message}", file=sys.stderr)
        return 2
    out = sys.stdout
    for response_id, base, new, cva in scores.itertuples(index=False, name=None):
        out.write(
            json.dumps({"response_id": response_id, "base": base, "new": new, "cva": cva}) + "\n"
        )
    return 0
