"""The shared task's CSV files: read as strings, checked, errors naming file, row and column."""

from __future__ import annotations

import pytest

from analysis.methods.keypoint_eval import KeyPointInputError, load_data

ARGUMENTS = 'arg_id,argument,topic,stance\n007,"one, with a comma",T,1\na2,two,T,-1\n'
KEY_POINTS = "key_point_id,key_point,topic,stance\nk1,first,T,1\nk2,second,T,-1\n"
LABELS = "arg_id,key_point_id,label\n007,k1,1\na2,k2,0\n"


def write(folder, arguments=ARGUMENTS, key_points=KEY_POINTS, labels=LABELS, subset="dev"):
    (folder / f"arguments_{subset}.csv").write_text(arguments)
    (folder / f"key_points_{subset}.csv").write_text(key_points)
    (folder / f"labels_{subset}.csv").write_text(labels)
    return folder


def test_reads_ids_as_strings_and_codes_as_integers(tmp_path):
    data = load_data(write(tmp_path), "dev")
    assert data.arguments["arg_id"].tolist() == ["007", "a2"]
    assert data.arguments["argument"].tolist() == ["one, with a comma", "two"]
    assert data.arguments["stance"].tolist() == [1, -1]
    assert data.labels["label"].tolist() == [1, 0]
    assert data.key_points["key_point_id"].tolist() == ["k1", "k2"]


def test_the_subset_names_the_files(tmp_path):
    write(tmp_path, subset="test")
    assert len(load_data(tmp_path, "test").arguments) == 2
    with pytest.raises(KeyPointInputError, match=r"arguments_dev\.csv: no such file"):
        load_data(tmp_path, "dev")


@pytest.mark.parametrize(
    ("files", "message"),
    [
        ({"arguments": "arg_id,argument,topic\na1,x,T\n"},
         r"arguments_dev\.csv: missing column\(s\) stance"),
        ({"arguments": "arg_id,argument,topic,stance\na1,x,T,1\na2,y,T,pro\n"},
         r"arguments_dev\.csv: row 3, column stance: 'pro' is not one of 1, -1"),
        ({"arguments": "arg_id,argument,topic,stance\na1,x,T,1\na1,y,T,1\n"},
         r"arguments_dev\.csv: row 3: arg_id 'a1' appears more than once"),
        ({"arguments": "arg_id,argument,topic,stance\na1,x,,1\n"},
         r"arguments_dev\.csv: row 2, column topic: empty"),
        ({"arguments": "arg_id,argument,topic,stance\n"}, r"arguments_dev\.csv: no arguments"),
        ({"key_points": "key_point_id,key_point,topic,stance\nk1,a,T,1\nk1,b,T,1\n"},
         r"key_points_dev\.csv: row 3: key_point_id 'k1' appears more than once"),
        ({"labels": "arg_id,key_point_id,label\na1,k1,0.5\n"},
         r"labels_dev\.csv: row 2, column label: '0.5' is not one of 0, 1"),
        ({"labels": "arg_id,key_point_id,label\na1,k1,1\na1,k1,0\n"},
         r"labels_dev\.csv: row 3: arg_id 'a1', key_point_id 'k1' appears more than once"),
        ({"labels": ""}, r"labels_dev\.csv: empty file"),
    ],
)
def test_bad_files_are_refused_naming_file_row_and_column(tmp_path, files, message):
    write(tmp_path, **files)
    with pytest.raises(KeyPointInputError, match=message):
        load_data(tmp_path, "dev")
