"""Reading the KPA 2021 files: every check names file, line and field, nothing is half-written,
and an import exported again gives the same files."""

from __future__ import annotations

import csv
import io

import pytest

from annotation.importers import ImportFailed
from annotation.models import Item
from task_types.key_points.corpus import read_corpus, read_folder
from task_types.key_points.selectors import corpus_files
from task_types.key_points.services import corpus_import
from tests.factories import ProjectFactory

TOPIC = "We should ban boxing"
ARGUMENTS = (
    "arg_id,argument,topic,stance\n"
    f'a1,"Boxing harms the brain, badly",{TOPIC},1\n'
    f"a2,Fighters choose the risk,{TOPIC},-1\n"
    f"a3,It glorifies violence,{TOPIC},1\n"
)
KEY_POINTS = (
    "key_point_id,key_point,topic,stance\n"
    f"k1,Boxing causes injuries,{TOPIC},1\n"
    f"k2,Boxing is violent,{TOPIC},1\n"
    f"k3,Adults may take risks,{TOPIC},-1\n"
)
LABELS = "arg_id,key_point_id,label\na1,k1,1\na1,k2,0\na2,k3,1\n"


def errors_of(*files: str | None) -> list[str]:
    with pytest.raises(ImportFailed) as failed:
        read_corpus(*files)
    return [str(e) for e in failed.value.errors]


def test_records_hold_each_argument_with_the_key_points_of_its_topic_and_stance_in_file_order():
    corpus = read_corpus(ARGUMENTS, KEY_POINTS, LABELS)
    records = corpus.records()
    assert [r["id"] for r in records] == ["a1", "a2", "a3"]
    assert [k["id"] for k in records[0]["key_points"]] == ["k1", "k2"]
    assert [k["id"] for k in records[1]["key_points"]] == ["k3"]
    assert records[0]["gold"] == {"k1": 1, "k2": 0} and "gold" not in records[2]
    assert records[0]["argument"] == "Boxing harms the brain, badly" and records[1]["stance"] == -1


def test_an_unknown_stance_is_named_with_file_line_and_field():
    bad = ARGUMENTS.replace(f"a2,Fighters choose the risk,{TOPIC},-1", f"a2,Fighters choose the risk,{TOPIC},con")
    assert errors_of(bad, KEY_POINTS) == ["arguments.csv line 3, field 'stance': unknown stance 'con': must be 1 or -1"]


def test_a_key_point_of_a_topic_and_stance_without_arguments_is_refused():
    bad = KEY_POINTS + "k4,Boxing builds character,Another topic,1\n"
    assert errors_of(ARGUMENTS, bad) == [
        "key_points.csv line 5, field 'topic': no argument has topic 'Another topic' and stance 1"]


def test_duplicate_ids_in_either_file_are_refused():
    assert errors_of(ARGUMENTS + f"a1,Again,{TOPIC},1\n", KEY_POINTS) == [
        "arguments.csv line 5, field 'arg_id': duplicate id 'a1' (first on line 2)"]
    assert errors_of(ARGUMENTS, KEY_POINTS + f"k1,Again,{TOPIC},1\n") == [
        "key_points.csv line 5, field 'key_point_id': duplicate id 'k1' (first on line 2)"]
    assert errors_of(ARGUMENTS, KEY_POINTS, LABELS + "a1,k1,0\n") == [
        "labels.csv line 5, field 'key_point_id': duplicate pair (first on line 2)"]


def test_missing_columns_are_named():
    assert errors_of(ARGUMENTS.replace("stance", "side", 1), KEY_POINTS) == [
        "arguments.csv line 1, field 'stance': missing column (the file needs arg_id, argument, topic, stance)"]
    assert "labels.csv line 1, field 'label': missing column" in errors_of(
        ARGUMENTS, KEY_POINTS, "arg_id,key_point_id\na1,k1\n")[0]


def test_labels_must_name_known_ids_of_one_topic_and_stance_with_0_or_1():
    found = errors_of(ARGUMENTS, KEY_POINTS, LABELS + "a9,k1,1\na1,k3,1\na3,k2,yes\n")
    assert found == [
        "labels.csv line 5, field 'arg_id': unknown argument 'a9'",
        "labels.csv line 6, field 'key_point_id': the key point is not of the argument's topic and stance",
        "labels.csv line 7, field 'label': must be 0 or 1, got 'yes'",
    ]


def test_an_argument_whose_topic_and_stance_has_no_key_point_is_refused():
    assert errors_of(ARGUMENTS + "a4,Other,Other topic,1\n", KEY_POINTS) == [
        "arguments.csv line 5, field 'topic': no key point has topic 'Other topic' and stance 1"]


@pytest.mark.django_db
def test_a_refused_file_writes_nothing_and_a_second_import_of_the_same_ids_is_refused():
    project = ProjectFactory(task_type="key_points")
    corpus_import(project=project, corpus=read_corpus(ARGUMENTS, KEY_POINTS, LABELS))
    with pytest.raises(ImportFailed) as failed:
        corpus_import(project=project, corpus=read_corpus(ARGUMENTS, KEY_POINTS))
    assert "arguments.csv line 2, field 'id': item 'a1' already exists" in str(failed.value)
    assert Item.objects.filter(project=project).count() == 3


@pytest.mark.django_db
def test_round_trip_of_a_small_corpus():
    project = ProjectFactory(task_type="key_points")
    corpus_import(project=project, corpus=read_corpus(ARGUMENTS, KEY_POINTS, LABELS))
    files = corpus_files(project=project)
    assert files["arguments.csv"] == ARGUMENTS and files["key_points.csv"] == KEY_POINTS
    assert files["labels.csv"] == LABELS


def _rows(text: str) -> list[tuple[str, ...]]:
    return sorted(tuple(r) for r in csv.reader(io.StringIO(text)))


@pytest.mark.django_db
@pytest.mark.shared_data
def test_round_trip_of_the_dev_set(shared_data):
    folder = shared_data / "kpa_2021"
    project = ProjectFactory(task_type="key_points")
    corpus = read_folder(folder, "dev")
    result = corpus_import(project=project, corpus=corpus)
    assert result.created == 932 and len(corpus.key_points) == 36 and len(corpus.labels) == 3458
    files = corpus_files(project=project)
    # The same bytes for arguments and key points; the same rows for labels (ours in item order).
    assert files["arguments.csv"] == (folder / "arguments_dev.csv").read_text(encoding="utf-8")
    assert files["key_points.csv"] == (folder / "key_points_dev.csv").read_text(encoding="utf-8")
    assert _rows(files["labels.csv"]) == _rows((folder / "labels_dev.csv").read_text(encoding="utf-8"))
