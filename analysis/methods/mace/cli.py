"""The original MACE command line: ``python -m analysis.methods.mace [options] FILE.csv``.

Reads the original CSV (one line per item, one column per annotator, empty cells where an
annotator gave no label, blank lines allowed) and writes ``[prefix.]prediction`` (one label per
line; an empty line for a blank input line or an item below the threshold),
``[prefix.]competence`` (one tab-separated line, one value per column) and, with
``--entropies``, ``[prefix.]entropies`` (one value per line, empty for blank lines). Numbers are
written as Java's ``Double.toString`` writes them. As in the original, ``--alpha``/``--beta``
switch back to variational Bayes when they come after ``--em``. Unlike the original, a run that
would need more than ``--max-memory`` (default 4 GiB) stops with an error before it starts.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from analysis.methods.mace.estimator import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    DEFAULT_ITERATIONS,
    DEFAULT_RESTARTS,
    mace,
    threshold_mask,
)
from analysis.methods.mace.layout import DEFAULT_MAX_MEMORY, format_bytes, parse_bytes

Number = TypeVar("Number", int, float)

# Java's String.trim() drops every character up to and including the space.
_JAVA_BLANK = "".join(map(chr, range(33)))
_TOKEN = re.compile(rb"[^,]+")


class MaceInputError(ValueError):
    """An input file the original tool would reject (or silently misread)."""


@dataclass(frozen=True)
class CsvAnnotations:
    items: np.ndarray  # row of each annotation (0-based line number)
    workers: np.ndarray  # column of each annotation
    labels: np.ndarray  # code of each annotation's label, in order of first appearance
    label_names: list[str]
    n_rows: int
    n_columns: int
    blank: np.ndarray  # (n_rows,) bool: a blank line, which is no item at all


def _lines(path: Path) -> list[bytes]:
    try:
        data = path.read_bytes()
    except OSError as error:
        raise MaceInputError(f"{path}: cannot read: {error.strerror}") from None
    # Lines end as Java's readLine() ends them: at \n, \r or \r\n.
    lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def _text(path: Path, number: int, raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise MaceInputError(f"{path}:{number}: not UTF-8 text") from None


def read_csv(path: str | Path) -> CsvAnnotations:
    """Parse the original input format; errors name the file and line."""
    path = Path(path)
    lines = _lines(path)
    codes: dict[str, int] = {}
    # Machine integers, not lists of Python ints: the parse then takes 24 bytes per annotation.
    items, workers, labels = array("q"), array("q"), array("q")
    blank = np.zeros(len(lines), dtype=bool)
    n_columns, first_line = None, 0
    for row, line in enumerate(lines):
        if not _text(path, row + 1, line).strip(_JAVA_BLANK):
            blank[row] = True
            continue
        columns = line.count(b",") + 1
        if n_columns is None:
            n_columns, first_line = columns, row + 1
        elif columns != n_columns:
            raise MaceInputError(
                f"{path}:{row + 1}: {columns} columns, but line {first_line} has {n_columns}"
            )
        # Most cells are empty, so find the labels and count the commas before each.
        for match in _TOKEN.finditer(line):
            name = match.group().decode("utf-8")
            items.append(row)
            workers.append(line.count(b",", 0, match.start()))
            labels.append(codes.setdefault(name, len(codes)))
    if not items or n_columns is None:  # the one implies the other
        raise MaceInputError(f"{path}: no annotations")
    return CsvAnnotations(
        np.frombuffer(items, dtype=np.int64),
        np.frombuffer(workers, dtype=np.int64),
        np.frombuffer(labels, dtype=np.int64),
        list(codes),
        len(lines),
        n_columns,
        blank,
    )


def read_controls(path: str | Path, data: CsvAnnotations) -> np.ndarray:
    """Known labels, one line per input line (empty where unknown); -1 where there is none."""
    path = Path(path)
    codes = {name: code for code, name in enumerate(data.label_names)}
    controls = np.full(data.n_rows, -1, dtype=np.int64)
    for row, raw in enumerate(_lines(path)):
        name = _text(path, row + 1, raw).strip(_JAVA_BLANK)
        if not name:
            continue
        if row >= data.n_rows:
            raise MaceInputError(
                f"{path}:{row + 1}: a control beyond the {data.n_rows} lines of the input"
            )
        if name not in codes:
            raise MaceInputError(f"{path}:{row + 1}: label {name!r} does not occur in the input")
        if not data.blank[row]:  # the original ignores controls on blank lines
            controls[row] = codes[name]
    return controls


def format_double(value: float) -> str:
    """``Double.toString``: shortest round-trip digits, plain from 1e-3 up to 1e7, else d.dddE±n."""
    value = float(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    sign = "-" if value < 0 else ""
    parts = Decimal(repr(abs(value))).as_tuple()
    # Finite here (NaN and the infinities returned above): the exponent is a number.
    assert isinstance(parts.exponent, int)
    exponent = parts.exponent + len(parts.digits) - 1
    digits = "".join(map(str, parts.digits)).rstrip("0") or "0"
    if 1e-3 <= abs(value) < 1e7:
        if exponent >= 0:
            whole, fraction = (
                digits[: exponent + 1].ljust(exponent + 1, "0"),
                digits[exponent + 1 :],
            )
        else:
            whole, fraction = "0", "0" * (-exponent - 1) + digits
        return f"{sign}{whole}.{fraction or '0'}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exponent}"


class _PriorAction(argparse.Action):
    """--alpha/--beta: like the original, giving a prior means variational Bayes."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        value: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        setattr(namespace, self.dest, value)
        namespace.em = False


def _at_least(minimum: Number, kind: Callable[[str], Number]) -> Callable[[str], Number]:
    def parse(text: str) -> Number:
        value = kind(text)
        if not value >= minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {text}")
        return value

    return parse


def _size(text: str) -> int:
    try:
        return parse_bytes(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _fraction(text: str) -> float:
    value = float(text)
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0.0 and 1.0, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.methods.mace",
        description="MACE -- Multi-Annotator Competence Estimation (Hovy et al., 2013). Variational Bayes EM unless --em.",
    )
    parser.add_argument(
        "csv", type=Path, help="one line per item, one comma-separated column per annotator"
    )
    parser.add_argument(
        "--em", action="store_true", help="maximum-likelihood EM instead of variational Bayes"
    )
    parser.add_argument(
        "--alpha",
        type=float,
        default=DEFAULT_ALPHA,
        action=_PriorAction,
        help="Beta prior on guessing (default %(default)s)",
    )
    parser.add_argument(
        "--beta",
        type=float,
        default=DEFAULT_BETA,
        action=_PriorAction,
        help="Beta prior on knowing (default %(default)s)",
    )
    parser.add_argument(
        "--iterations",
        type=_at_least(1, int),
        default=DEFAULT_ITERATIONS,
        help="EM iterations per restart (default %(default)s)",
    )
    parser.add_argument(
        "--restarts",
        type=_at_least(1, int),
        default=DEFAULT_RESTARTS,
        help="random restarts (default %(default)s)",
    )
    parser.add_argument(
        "--smoothing",
        type=_at_least(0.0, float),
        default=None,
        help="added to fractional counts in EM (default 0.01/number of labels)",
    )
    parser.add_argument(
        "--threshold",
        type=_fraction,
        default=1.0,
        help="keep only the most certain fraction of items (default 1.0)",
    )
    parser.add_argument(
        "--controls", type=Path, help="known labels, one line per input line, empty where unknown"
    )
    parser.add_argument(
        "--test",
        type=Path,
        help="gold labels, one line per input line: print coverage and accuracy",
    )
    parser.add_argument("--prefix", help="write PREFIX.prediction etc. instead of prediction etc.")
    parser.add_argument(
        "--entropies", action="store_true", help="also write each item's posterior entropy"
    )
    parser.add_argument(
        "--distribution",
        action="store_true",
        help="write every label with its probability, most likely first",
    )
    parser.add_argument("--seed", type=int, help="random seed, for reproducible restarts")
    parser.add_argument(
        "--threads",
        type=_at_least(1, int),
        help="blocks of restarts run side by side, each taking memory (default: one per core)",
    )
    parser.add_argument(
        "--max-memory",
        type=_size,
        default=DEFAULT_MAX_MEMORY,
        metavar="SIZE",
        help=f"refuse a run that would need more memory than this, e.g. 16G or 500M "
        f"(default {format_bytes(DEFAULT_MAX_MEMORY)})",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    options = build_parser().parse_args(argv)
    try:
        data = read_csv(options.csv)
        controls = read_controls(options.controls, data) if options.controls else None
        gold = _test_lines(options.test, data.n_rows) if options.test else None
        result = mace(
            data.items,
            data.workers,
            data.labels,
            n_items=data.n_rows,
            n_workers=data.n_columns,
            n_labels=len(data.label_names),
            em=options.em,
            alpha=options.alpha,
            beta=options.beta,
            iterations=options.iterations,
            restarts=options.restarts,
            smoothing=options.smoothing,
            controls=controls,
            seed=options.seed,
            threads=options.threads,
            max_memory=options.max_memory,
        )
    except (MaceInputError, ValueError) as error:  # MaceTooLarge is a ValueError
        print(f"mace: error: {error}", file=sys.stderr)
        return 1
    method = (
        "EM" if options.em else f"variational Bayes (alpha={options.alpha}, beta={options.beta})"
    )
    print(
        f"{data.n_rows} lines, {len(data.label_names)} labels, {data.n_columns} annotators; {method}; "
        f"best of {options.restarts} restarts: #{result.best_restart + 1}, log marginal likelihood {result.log_likelihood}",
        file=sys.stderr,
    )
    # Blank lines are certain by construction and count towards n, as in the original.
    entropies = np.where(data.blank, -np.inf, result.entropies)
    kept = threshold_mask(entropies, options.threshold) & ~data.blank
    names = data.label_names
    predictions = []
    for row in range(data.n_rows):
        code = result.labels[row]
        if not kept[row] or (code < 0 and not options.distribution):
            predictions.append("")
        elif options.distribution:
            # Most likely first; ties in label order. One row at a time: items x labels can be
            # far larger than the annotations.
            posterior = result.item_posteriors.row(row)
            order = np.argsort(-posterior, kind="stable")
            predictions.append(
                "\t".join(f"{names[c]} {format_double(posterior[c])}" for c in order)
            )
        else:
            predictions.append(names[code])
    prefix = f"{options.prefix}." if options.prefix else ""
    outputs = {"prediction": (predictions, "\n")}
    outputs["competence"] = ([format_double(c) for c in result.competence], "\t")
    if options.entropies:
        values = [format_double(e) for e in result.entropies]
        outputs["entropies"] = (
            ["" if b else v for b, v in zip(data.blank, values, strict=True)],
            "\n",
        )
    try:
        for name, (values, separator) in outputs.items():
            Path(f"{prefix}{name}").write_text(separator.join(values) + "\n", encoding="utf-8")
    except OSError as error:
        print(f"mace: error: cannot write {error.filename}: {error.strerror}", file=sys.stderr)
        return 1
    if gold is not None:
        covered = [(g, p) for g, p in zip(gold, predictions, strict=True) if p != ""]
        accuracy = sum(g == p for g, p in covered) / len(covered) if covered else 0.0
        print(
            f"Coverage: {format_double(len(covered) / data.n_rows)}\tAccuracy on test set: {format_double(accuracy)}"
        )
    return 0


def _test_lines(path: Path, n_rows: int) -> list[str]:
    lines = [_text(path, n + 1, raw).strip(_JAVA_BLANK) for n, raw in enumerate(_lines(path))]
    if len(lines) != n_rows:
        raise MaceInputError(f"{path}: {len(lines)} lines, but the input has {n_rows}")
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
