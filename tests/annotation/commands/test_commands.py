"""Management commands: importing, generating pairs, the demo and exports."""

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from annotation.models import Argument, Item, Project, Topic
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db
ARGS = (
    "arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"
    + "".join(f"x{i}\tuniform_good\tUniforms?\tgood\tauthor{i}\t{' '.join(['word'] * (8 + 3 * i))}\n" for i in range(6))
)


def run(*args):
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_import_items_command(tmp_path):
    project = ProjectFactory()
    good = tmp_path / "items.jsonl"
    good.write_text('{"topic": "t", "prompt": "P", "stance": "s", "arg1_id": "a", "arg1_text": "x", "arg2_id": "b", "arg2_text": "y"}\n')
    assert "1 new" in run("import_items", project.slug, str(good))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"topic": "t"}\n')
    with pytest.raises(CommandError, match="line 1, field 'prompt': is missing"):
        run("import_items", project.slug, str(bad))
    with pytest.raises(CommandError, match="no project with slug 'nope'"):
        run("import_items", "nope", str(good))


def test_arguments_then_pairs(tmp_path):
    path = tmp_path / "arguments.tsv"
    path.write_text(ARGS)
    assert "1 topics, 6 new" in run("import_arguments", str(path))
    assert Argument.objects.get(external_id="x0").author == "author0"
    project = ProjectFactory()
    out = run("generate_pairs", project.slug, "uniform_good", "--seed", "5", "--min-words", "10", "--max-words", "20")
    # Arguments have 8, 11, 14, 17, 20, 23 words: four pass the filter, six pairs.
    assert "4 arguments, 6 pairs, 6 new items" in out
    again = run("generate_pairs", project.slug, "uniform_good", "--seed", "6", "--min-words", "10", "--max-words", "20")
    assert "0 new items, 6 already present" in again
    project.refresh_from_db()
    assert [g["seed"] for g in project.options["pair_generation"]] == [5, 6]
    with pytest.raises(CommandError, match="no topic 'nope'"):
        run("generate_pairs", project.slug, "nope", "--seed", "1")


def test_load_demo_from_the_shared_data_is_idempotent(shared_data):
    first = run("load_demo", "--data", str(shared_data))
    assert "56 items from UKPConvArg1" in first and "annotator1 / annotator1" in first
    second = run("load_demo", "--data", str(shared_data))
    assert "already there" in second and ", 0 new." in second
    assert "150 items from the IBM Debater" in first and "4 items from four clips" in first
    listening = Project.objects.get(slug="comprehension-listening-demo")
    assert listening.media_files.count() == 4 and listening.options["mode"] == "listening"
    project = Project.objects.get(slug="ukpconvarg-demo")
    assert project.items.count() == 56 and project.members.count() == 3
    words = [len(a.text.split()) for a in Argument.objects.filter(topic__external_id__contains="school-uniform")]
    assert words and Topic.objects.count() == 2


def test_load_demo_falls_back_to_the_built_in_sample(tmp_path):
    out = run("load_demo", "--data", str(tmp_path / "missing"))
    assert "28 items from the built-in sample" in out and "4 items from the four built-in speeches" in out
    assert Item.objects.count() == 28 + 4 + 4


def test_export_annotations_command(tmp_path):
    project = ProjectFactory()
    out = tmp_path / "a.csv"
    call_command("export_annotations", project.slug, "--out", str(out), stderr=io.StringIO())
    header = next(csv.reader(out.open()))
    assert header[:3] == ["project", "item", "assignment"] and header[-3:] == ["label", "reason", "worker_stance"]
    text = run("export_annotations", project.slug, "--format", "json")
    assert json.loads(text) == []
