"""Agreement with the shared task's own evaluation script on the dev split.

The expected figures are what ``track_1_kp_matching.py`` printed on each case's predictions
(``shared_task_dev.json``); the test makes the same predictions again from the recorded seed and
parameters and compares to 1e-6.
"""

from __future__ import annotations

import pytest

from analysis.methods.keypoint_eval import evaluate, load_data
from tests.analysis.methods.keypoint_eval.random_predictions import cases, random_predictions

KPA_FILES = ("arguments_dev.csv", "key_points_dev.csv", "labels_dev.csv")


@pytest.fixture
def dev(shared_data):
    folder = shared_data / "kpa_2021"
    missing = [name for name in KPA_FILES if not (folder / name).is_file()]
    if missing:
        pytest.skip(f"{folder} lacks {', '.join(missing)}")
    return load_data(folder, "dev")


@pytest.mark.shared_data
@pytest.mark.parametrize("case", cases(), ids=lambda case: case["name"])
def test_agrees_with_the_shared_task_script(dev, case):
    predictions = random_predictions(dev.arguments, dev.key_points, dev.labels, **case["generator"])
    scores = [score for kps in predictions.values() for score in kps.values()]
    assert len(set(scores)) == len(scores), "the comparison holds for files without tied scores"

    result = evaluate(arguments=dev.arguments, key_points=dev.key_points, labels=dev.labels,
                      predictions=predictions)

    assert result.strict == pytest.approx(case["expected"]["strict"], abs=1e-6)
    assert result.relaxed == pytest.approx(case["expected"]["relaxed"], abs=1e-6)
    assert result.ignored_key_points.count == case["ignored_key_points_printed"]


@pytest.mark.shared_data
def test_dev_split_shape(dev):
    assert (len(dev.arguments), len(dev.key_points), len(dev.labels)) == (932, 36, 3458)
    assert dev.arguments["stance"].isin([1, -1]).all()
