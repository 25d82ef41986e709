"""Seeded random predictions over the shared task's data, for the comparison with its script.

``shared_task_dev.json`` holds, for each case, the generator's parameters and seed and the
figures the shared task's own ``track_1_kp_matching.py`` printed on the file these parameters
make. To record a case again, write the files and run the script on each (outside the project):

    .venv/bin/python -m tests.analysis.methods.keypoint_eval.random_predictions DATA_DIR OUT_DIR
    python track_1_kp_matching.py DATA_DIR OUT_DIR/<name>.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

FIXTURE = Path(__file__).with_name("shared_task_dev.json")


def random_predictions(
    arguments: pd.DataFrame,
    key_points: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    seed: int,
    coverage: float = 1.0,
    kp_share: float = 1.0,
    informed: float = 0.0,
    unknown_key_points: float = 0.0,
    unknown_arguments: int = 0,
    other_topic: float = 0.0,
) -> dict[str, dict[str, float]]:
    """Scores in [0, 1) (+ ``informed`` × label), drawn in the files' order.

    ``coverage``: share of arguments with an entry; ``kp_share``: chance that a key point of the
    argument's topic and stance is scored (an argument may end with none); ``informed``: added to
    the score of a pair labelled 1 (half of it to an unlabelled pair), so that mAP is not tiny;
    ``unknown_key_points``: chance of an extra score, the highest, for an id not in the key points
    file; ``unknown_arguments``: entries for ids not in the arguments file; ``other_topic``: chance
    of a score for a key point of another topic.
    """
    rng = np.random.default_rng(seed)
    gold = {(a, k): int(v) for a, k, v in zip(labels["arg_id"], labels["key_point_id"],
                                              labels["label"], strict=True)}
    by_group: dict[tuple[str, int], list[str]] = {}
    for kp_id, topic, stance in zip(key_points["key_point_id"], key_points["topic"],
                                    key_points["stance"].astype(int), strict=True):
        by_group.setdefault((topic, stance), []).append(kp_id)
    all_kps = key_points["key_point_id"].tolist()
    kp_topic = dict(zip(key_points["key_point_id"], key_points["topic"], strict=True))
    out: dict[str, dict[str, float]] = {}
    for arg_id, topic, stance in zip(arguments["arg_id"], arguments["topic"],
                                     arguments["stance"].astype(int), strict=True):
        if rng.random() >= coverage:
            continue
        scores: dict[str, float] = {}
        for kp_id in by_group.get((topic, stance), []):
            if rng.random() < kp_share:
                bonus = informed * gold.get((arg_id, kp_id), 0.5)
                scores[kp_id] = float(rng.random() + bonus)
        if rng.random() < unknown_key_points:
            scores[f"kp_unknown_{arg_id}"] = float(2 + rng.random())
        if rng.random() < other_topic:
            kp_id = all_kps[int(rng.integers(len(all_kps)))]
            if kp_topic[kp_id] != topic:
                scores[kp_id] = float(rng.random() + informed)
        out[arg_id] = scores
    for number in range(unknown_arguments):
        out[f"arg_unknown_{number}"] = {all_kps[0]: float(rng.random())}
    return out


def cases() -> list[dict[str, Any]]:
    cases_: list[dict[str, Any]] = json.loads(FIXTURE.read_text())["cases"]
    return cases_


def main(argv: list[str]) -> int:
    from analysis.methods.keypoint_eval import load_data

    data_dir, out_dir = Path(argv[0]), Path(argv[1])
    data = load_data(data_dir, "dev")
    out_dir.mkdir(parents=True, exist_ok=True)
    for case in cases():
        predictions = random_predictions(data.arguments, data.key_points, data.labels,
                                         **case["generator"])
        (out_dir / f"{case['name']}.json").write_text(json.dumps(predictions))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
