"""The TF-IDF key-point matcher: scores within topic and stance, the command line, dev mAP."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analysis.methods.keypoint_eval import evaluate, load_data, parse_predictions
from analysis.methods.keypoint_match import main, match_tfidf, tokens

ARGUMENTS = pd.DataFrame(
    [
        ("a1", "Uniforms stop bullying of poorer children", "Uniforms", 1),
        ("a2", "Children express themselves through clothes", "Uniforms", -1),
        ("a3", "Gambling ruins families", "Gambling", 1),
        ("a4", "Something with no key point", "Lonely", 1),
    ],
    columns=["arg_id", "argument", "topic", "stance"],
)
KEY_POINTS = pd.DataFrame(
    [
        ("k2", "School uniform is expensive", "Uniforms", 1),
        ("k1", "Uniforms reduce bullying", "Uniforms", 1),
        ("k3", "Clothes let children express themselves", "Uniforms", -1),
        ("k4", "Gambling is addictive", "Gambling", 1),
        ("k5", "Gambling harms families", "Gambling", -1),
    ],
    columns=["key_point_id", "key_point", "topic", "stance"],
)


def test_tokens_are_stemmed_words_without_stop_words_apostrophes_kept_inside():
    assert tokens("The uniforms are REDUCING bullying, aren't they?") == ["uniform", "reduc", "bulli", "aren't"]


def test_each_argument_is_scored_against_its_topic_and_stance_in_file_order():
    predictions = match_tfidf(arguments=ARGUMENTS, key_points=KEY_POINTS)
    assert list(predictions) == ["a1", "a2", "a3", "a4"]
    assert list(predictions["a1"]) == ["k2", "k1"]  # the key points file's order
    assert predictions["a1"]["k1"] > predictions["a1"]["k2"]
    assert list(predictions["a2"]) == ["k3"] and predictions["a2"]["k3"] > 0.5
    assert list(predictions["a3"]) == ["k4"]  # k5 is the other stance
    assert predictions["a4"] == {}
    assert all(0.0 <= s <= 1.0 for scores in predictions.values() for s in scores.values())


def test_identical_texts_score_1():
    arguments = pd.DataFrame([("a1", "Uniforms reduce bullying", "Uniforms", 1)],
                             columns=["arg_id", "argument", "topic", "stance"])
    predictions = match_tfidf(arguments=arguments, key_points=KEY_POINTS)
    assert predictions["a1"]["k1"] == pytest.approx(1.0)


def test_command_line_prints_predictions(tmp_path, capsys):
    ARGUMENTS.to_csv(tmp_path / "arguments_x.csv", index=False)
    KEY_POINTS.to_csv(tmp_path / "key_points_x.csv", index=False)
    assert main([str(tmp_path), "--subset", "x", "--model", "tfidf"]) == 0
    printed = parse_predictions(capsys.readouterr().out)
    assert printed == match_tfidf(arguments=ARGUMENTS, key_points=KEY_POINTS)


def test_command_line_bad_input_exits_2(tmp_path, capsys):
    ARGUMENTS.to_csv(tmp_path / "arguments_dev.csv", index=False)
    assert main([str(tmp_path)]) == 2
    assert "key_points_dev.csv: no such file" in capsys.readouterr().err


@pytest.mark.shared_data
def test_dev_map_is_the_documented_figure(shared_data):
    folder = shared_data / "kpa_2021"
    if not (folder / "labels_dev.csv").is_file():
        pytest.skip(f"{folder} lacks the KPA 2021 dev split")
    data = load_data(folder, "dev")
    predictions = match_tfidf(arguments=data.arguments, key_points=data.key_points)
    result = evaluate(arguments=data.arguments, key_points=data.key_points, labels=data.labels,
                      predictions=json.loads(json.dumps(predictions)))
    # docs/key-point-evaluation.md gives these (rounded to 3 places)
    assert result.strict == pytest.approx(0.500, abs=5e-4)
    assert result.relaxed == pytest.approx(0.702, abs=5e-4)
