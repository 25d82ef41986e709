"""``python -m analysis.methods.keypoint_eval DATA_DIR PREDICTIONS.json [--subset dev]``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.methods.keypoint_eval.cli import main
from tests.analysis.methods.keypoint_eval.test_data import write

ROOT = Path(__file__).resolve().parents[4]


def test_prints_one_json_object(tmp_path, capsys):
    write(tmp_path)
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps({"007": {"k1": 0.9, "kq": 0.1}, "a2": {"k2": 0.4}}))
    assert main([str(tmp_path), str(predictions), "--subset", "dev"]) == 0
    printed = json.loads(capsys.readouterr().out)
    # each group has one argument, so keeps none and is worth 0
    assert (printed["strict"], printed["relaxed"], printed["mean"]) == (0.0, 0.0, 0.0)
    assert [group["kept"] for group in printed["groups"]] == [0, 0]
    assert printed["ignored_key_points"] == {"count": 1, "examples": ["kq"]}


@pytest.mark.parametrize(
    ("predictions", "message"),
    [
        ('{"007": {"k1": "x"}}', "argument '007', key point 'k1': score must be a number"),
        ("not json", "not valid JSON"),
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, capsys, predictions, message):
    write(tmp_path)
    path = tmp_path / "predictions.json"
    path.write_text(predictions)
    assert main([str(tmp_path), str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and message in captured.err


@pytest.mark.integration
def test_runs_as_a_module(tmp_path):
    write(tmp_path, labels="arg_id,key_point_id,label\n007,k1,x\n")
    path = tmp_path / "predictions.json"
    path.write_text("{}")
    done = subprocess.run([sys.executable, "-m", "analysis.methods.keypoint_eval", str(tmp_path),
                           str(path)], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        f"error: {tmp_path / 'labels_dev.csv'}: row 2, column label: 'x' is not one of 0, 1"
    )
