"""A predictions file: ``{"arg_id": {"key_point_id": score, …}, …}``.

The shared task's format. The JSON is decoded once by the standard library's C decoder (which
keeps one copy of each repeated key point id) and then checked in place: numbers are converted to
float where they are integers, nothing is copied, so a file of a million scores takes one pass
and about the memory of the decoded object. A score must be a finite number (not a string, a
boolean, null, NaN or an infinity); errors name the argument and key point ids.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import cast

from analysis.methods.keypoint_eval.data import KeyPointInputError

Predictions = dict[str, dict[str, float]]
_FLOAT = frozenset({float})


def parse_predictions(raw: bytes | str) -> Predictions:
    """Decode and check a predictions JSON document (bytes in UTF-8, or text)."""
    try:
        document = json.loads(raw)
    except UnicodeDecodeError:
        raise KeyPointInputError("predictions: not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise KeyPointInputError(
            f"predictions: not valid JSON at line {error.lineno}, column {error.colno}: {error.msg}"
        ) from None
    except RecursionError:
        raise KeyPointInputError("predictions: nested too deeply to be a predictions file") from None
    if not isinstance(document, dict):
        raise KeyPointInputError(
            "predictions: expected a JSON object {\"arg_id\": {\"key_point_id\": score, …}, …}, "
            f"got {_kind(document)}"
        )
    for arg_id, scores in document.items():
        if not isinstance(scores, dict):
            raise KeyPointInputError(
                f"predictions: argument {arg_id!r}: expected an object of key point scores "
                f"{{\"key_point_id\": score, …}}, got {_kind(scores)}"
            )
        values = scores.values()
        # The common case in one pass at C speed: all floats, and a finite sum means all finite
        # (an overflowing sum of finite scores falls through to the checks below, which pass it).
        if set(map(type, values)) <= _FLOAT and math.isfinite(sum(values)):
            continue
        for kp_id, score in scores.items():
            kind = type(score)
            if kind is float:
                if not math.isfinite(score):
                    raise KeyPointInputError(
                        f"predictions: argument {arg_id!r}, key point {kp_id!r}: score {score} is "
                        "not a finite number"
                    )
            elif kind is int:
                try:
                    scores[kp_id] = float(score)
                except OverflowError:
                    raise KeyPointInputError(
                        f"predictions: argument {arg_id!r}, key point {kp_id!r}: score is too large"
                    ) from None
            else:
                raise KeyPointInputError(
                    f"predictions: argument {arg_id!r}, key point {kp_id!r}: score must be a "
                    f"number, got {_kind(score)}"
                )
    return cast(Predictions, document)


def read_predictions(path: Path) -> Predictions:
    """Read and check a predictions file; errors name the file."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise KeyPointInputError(f"{path}: no such file") from None
    except OSError as error:
        raise KeyPointInputError(f"{path}: cannot read: {error.strerror}") from None
    try:
        return parse_predictions(raw)
    except KeyPointInputError as error:
        raise KeyPointInputError(f"{path}: {error}") from None


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, str):
        return f"a string ({value[:40]!r})"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a number ({value})"
