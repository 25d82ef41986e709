"""The predictions JSON: shape and scores checked, errors naming the ids."""

from __future__ import annotations

import pytest

from analysis.methods.keypoint_eval import KeyPointInputError, parse_predictions, read_predictions


def test_bytes_and_text_parse_to_float_scores():
    raw = '{"arg_1": {"kp_1": 0.25, "kp_2": 1}, "arg_2": {}}'
    for document in (raw, raw.encode("utf-8")):
        parsed = parse_predictions(document)
        assert parsed == {"arg_1": {"kp_1": 0.25, "kp_2": 1.0}, "arg_2": {}}
        assert type(parsed["arg_1"]["kp_2"]) is float


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"arg_1": {"kp_1": NaN}}', r"argument 'arg_1', key point 'kp_1': score nan is not a finite"),
        ('{"arg_1": {"kp_1": Infinity}}', r"argument 'arg_1', key point 'kp_1': score inf"),
        ('{"arg_1": {"kp_1": "0.5"}}', r"argument 'arg_1', key point 'kp_1': score must be a number, got a string"),
        ('{"arg_1": {"kp_1": null}}', r"key point 'kp_1': score must be a number, got null"),
        ('{"arg_1": {"kp_1": true}}', r"key point 'kp_1': score must be a number, got a boolean"),
        ('{"arg_1": {"kp_1": {"x": 1}}}', r"key point 'kp_1': score must be a number, got an object"),
        ('{"arg_1": [0.5]}', r"argument 'arg_1': expected an object of key point scores"),
        ('{"arg_1": 0.5}', r"argument 'arg_1': expected an object"),
        ('[{"arg_1": {"kp_1": 0.5}}]', r"expected a JSON object .* got an array"),
        ('{"arg_1": {"kp_1": 0.5}', r"not valid JSON at line 1"),
        ('{"arg_1": {"kp_1": 1e999999}}', r"key point 'kp_1': score inf is not a finite"),
    ],
)
def test_bad_documents_are_refused_naming_the_ids(raw, message):
    with pytest.raises(KeyPointInputError, match=message):
        parse_predictions(raw)


def test_not_utf8_is_refused():
    with pytest.raises(KeyPointInputError, match="not UTF-8"):
        parse_predictions(b'{"arg_\xff": {}}')


def test_read_predictions_names_the_file(tmp_path):
    path = tmp_path / "predictions.json"
    path.write_text('{"arg_1": {"kp_1": "high"}}')
    with pytest.raises(KeyPointInputError, match=r"predictions\.json: predictions: argument 'arg_1'"):
        read_predictions(path)
    with pytest.raises(KeyPointInputError, match="no such file"):
        read_predictions(tmp_path / "absent.json")
