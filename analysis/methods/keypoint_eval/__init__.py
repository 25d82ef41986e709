"""Key-point matching evaluation: strict and relaxed mAP, as in the KPA 2021 shared task (track 1).

``load_data`` reads the shared task's three CSV files, ``parse_predictions`` checks a predictions
JSON, ``evaluate`` scores it (the rules are in :mod:`analysis.methods.keypoint_eval.scoring`).
Run ``python -m analysis.methods.keypoint_eval DATA_DIR PREDICTIONS.json [--subset dev]
[--ties official|file-order]``.
"""

from analysis.methods.keypoint_eval.data import (
    KeyPointData,
    KeyPointInputError,
    check_arguments,
    check_key_points,
    check_labels,
    load_data,
    read_arguments,
    read_key_points,
    read_labels,
)
from analysis.methods.keypoint_eval.predictions import (
    Predictions,
    parse_predictions,
    read_predictions,
)
from analysis.methods.keypoint_eval.scoring import (
    TIES,
    GroupScore,
    IdSample,
    KeyPointEvaluation,
    evaluate,
)

__all__ = [
    "TIES",
    "GroupScore",
    "IdSample",
    "KeyPointData",
    "KeyPointEvaluation",
    "KeyPointInputError",
    "Predictions",
    "check_arguments",
    "check_key_points",
    "check_labels",
    "evaluate",
    "load_data",
    "parse_predictions",
    "read_arguments",
    "read_key_points",
    "read_labels",
    "read_predictions",
]
