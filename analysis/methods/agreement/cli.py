"""The agreement figures of a long CSV file, as one JSON object.

Usage::

    python -m analysis.methods.agreement FILE.csv [--level nominal|ordinal|interval|ratio]
        [--bootstrap N] [--seed S] [--interval percentile|basic] [--categories a,b,c]
        [--labels auto|plain|sets] [--set-distance masi|jaccard] [--min-overlap 10]
        [--pair-weighting mean|shared_items] [--item-column pair_id] [--sep TAB]

reads a CSV (``.tsv`` files are tab-separated; ``.gz``/``.bz2``/``.xz`` are decompressed) with a
header naming ``item,worker,label`` (other columns are ignored) and prints one JSON object with
every figure. Labels are single values, or set-valued answers written ``a|b|c`` or as a JSON
list ``["a","b"]`` (``[]`` for the empty answer): as soon as one label contains ``|`` or starts
with ``[`` every label is read as a set (``--labels`` overrides); ``--help`` and
:mod:`analysis.methods.agreement.io` give the exact rules.
Bad input exits with status 1 and a message naming the line and column.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from analysis.methods.agreement.frames import FrameError
from analysis.methods.agreement.io import InputError, default_separator, location, read_long_csv
from analysis.methods.agreement.report import agreement_report

_LABEL_HELP = """\
label syntax:
  A label is one value: text, or a number (when every label is a number they are
  compared as numbers). A set-valued answer (multi-select) is written as options
  joined by '|', e.g. claim|evidence, or as a JSON list, e.g. ["claim","evidence"];
  [] is the empty answer. With --labels auto (default) the file holds sets as soon
  as one label contains '|' or starts with '['; a label without either is then a
  one-option set. Sets get Krippendorff's alpha with MASI and Jaccard distances;
  the kappas, AC1 and percent agreement count identical answers as agreeing.

output:
  One JSON object: n_annotations, n_items, n_workers, n_labels (distinct labels),
  cohen_kappa (mean over worker pairs sharing >= --min-overlap items) and
  cohen_kappa_pairs, fleiss_kappa, gwet_ac1, krippendorff_alpha, percent_agreement,
  high_confidence_share; quadratic_weighted_kappa for ordinal/interval/ratio levels;
  positive_votes for binary (0/1) or set-valued labels; bootstrap intervals under
  "bootstrap" with --bootstrap N. Undefined figures are null.
"""


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.methods.agreement",
        description="Inter-annotator agreement of a long CSV file with columns item, worker, label.",
        epilog=_LABEL_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("file", type=Path, help="CSV/TSV with a header (.gz, .bz2, .xz allowed)")
    parser.add_argument(
        "--level", choices=["nominal", "ordinal", "interval", "ratio"], default="nominal"
    )
    parser.add_argument(
        "--categories", help="comma-separated labels in order (needed for ordinal text labels)"
    )
    parser.add_argument(
        "--labels", choices=["auto", "plain", "sets"], default="auto", help="label syntax"
    )
    parser.add_argument("--set-distance", choices=["masi", "jaccard"], default="masi")
    parser.add_argument(
        "--min-overlap", type=int, default=10, help="shared items for a worker pair (10)"
    )
    parser.add_argument("--pair-weighting", choices=["mean", "shared_items"], default="mean")
    parser.add_argument(
        "--high-confidence-slack",
        type=int,
        default=1,
        metavar="K",
        help="an item is high-confidence when m-K of its m ratings agree (1)",
    )
    parser.add_argument(
        "--bootstrap", type=int, default=0, metavar="N", help="bootstrap resamples (0: none)"
    )
    parser.add_argument("--seed", type=int, default=None, help="seed of the bootstrap")
    parser.add_argument("--confidence", type=float, default=0.95, help="interval coverage (0.95)")
    parser.add_argument(
        "--interval",
        choices=["percentile", "basic"],
        default="percentile",
        help="bootstrap interval: quantiles of the replicates, or reflected around the estimate",
    )
    parser.add_argument("--sep", help="field separator (default: tab for .tsv, else comma)")
    parser.add_argument("--item-column", default="item")
    parser.add_argument("--worker-column", default="worker")
    parser.add_argument("--label-column", default="label")
    parser.add_argument("--indent", type=int, default=None, help="pretty-print the JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.bootstrap < 0 or args.min_overlap < 1 or not 0 < args.confidence < 1:
        parser.error("--bootstrap must be >= 0, --min-overlap >= 1 and --confidence in (0, 1)")
    sep = args.sep or default_separator(args.file)
    categories = [c.strip() for c in args.categories.split(",")] if args.categories else None
    try:
        frame, categories = read_long_csv(
            args.file,
            sep=sep,
            columns=(args.item_column, args.worker_column, args.label_column),
            labels=args.labels,
            numeric_labels_required=args.level in ("interval", "ratio"),
            categories=categories,
        )
        report = agreement_report(
            frame,
            level=args.level,
            categories=categories,
            set_distance=args.set_distance,
            min_overlap=args.min_overlap,
            pair_weighting=args.pair_weighting,
            high_confidence_slack=args.high_confidence_slack,
            n_boot=args.bootstrap,
            seed=args.seed,
            confidence=args.confidence,
            interval_method=args.interval,
        )
    except FrameError as error:
        where = location(args.file, sep, error.row) if error.row is not None else "input"
        column = {
            "item": args.item_column,
            "worker": args.worker_column,
            "label": args.label_column,
        }.get(error.column or "")
        print(
            f"agreement: error: {args.file}: {where}{f', column {column!r}' if column else ''}: {error}",
            file=sys.stderr,
        )
        return 1
    except (InputError, ValueError) as error:
        print(f"agreement: error: {error}", file=sys.stderr)
        return 1
    print(json.dumps(report.to_dict(), indent=args.indent, allow_nan=False))
    return 0

