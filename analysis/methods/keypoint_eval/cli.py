"""``python -m analysis.methods.keypoint_eval DATA_DIR PREDICTIONS.json [--subset dev] [--ties official|file-order]``.

Prints one JSON object: ``strict``, ``relaxed``, ``mean``, ``ties`` (the rule that settled tied
scores), ``groups`` (one object per topic and
stance) and what was left out (``ignored_key_points``, ``ignored_arguments``,
``arguments_without_prediction``: a count and the first few ids). Bad input exits with status 2
and one line on standard error that names the file, row or ids.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

from analysis.methods.keypoint_eval.data import KeyPointInputError, load_data
from analysis.methods.keypoint_eval.predictions import read_predictions
from analysis.methods.keypoint_eval.scoring import TIES, evaluate


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.methods.keypoint_eval",
        description="Strict and relaxed mAP of key-point predictions (KPA 2021, track 1).",
    )
    parser.add_argument("data_dir", type=Path, help="folder with arguments_/key_points_/labels_<subset>.csv")
    parser.add_argument("predictions", type=Path, help='JSON {"arg_id": {"key_point_id": score}}')
    parser.add_argument("--subset", default="dev", help="file name suffix (default: dev)")
    parser.add_argument("--ties", choices=TIES, default=TIES[0],
                        help="how tied scores are settled: official (default), as the shared task's "
                             "script does (first key point in the argument's JSON object; pandas' "
                             "sort at the cut); file-order: first key point in the key points file, "
                             "arguments in the arguments file's order at the cut")
    args = parser.parse_args(argv)
    try:
        data = load_data(args.data_dir, args.subset)
        predictions = read_predictions(args.predictions)
        result = evaluate(arguments=data.arguments, key_points=data.key_points,
                          labels=data.labels, predictions=predictions, ties=args.ties)
    except KeyPointInputError as error:
        print(f"error: {error}".replace("\n", " "), file=sys.stderr)
        return 2
    json.dump(result.to_dict(), sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0
