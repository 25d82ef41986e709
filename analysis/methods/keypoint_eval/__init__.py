"""Key-point matching evaluation: strict and relaxed mAP, as in the KPA 2021 shared task (track 1).

``load_data`` reads the shared task's three CSV files, ``parse_predictions`` checks a predictions
JSON, ``evaluate`` scores it (the rules are in :mod:`analysis.methods.keypoint_eval.scoring`).
Run ``python -m analysis.methods.keypoint_eval DATA_DIR PREDICTIONS.json [--subset dev]``.
"""

from analysis.methods.keypoint_eval.data import KeyPointData, KeyPointInputError, load_data
from analysis.methods.keypoint_eval.predictions import (
    Predictions,
    parse_predictions,
    read_predictions,
)
from analysis.methods.keypoint_eval.scoring import (
    GroupScore,
    IdSample,
    KeyPointEvaluation,
    evaluate,
)

__all__ = [
    "GroupScore",
    "IdSample",
    "KeyPointData",
    "KeyPointEvaluation",
    "KeyPointInputError",
    "Predictions",
    "evaluate",
    "load_data",
    "parse_predictions",
    "read_predictions",
]
