"""The pairwise commands: importing arguments, generating pairs, and the demo."""

import pytest
from django.core.management import CommandError

from annotation.models import Project
from annotation.task_types import get_task_type
from task_types.pairwise.models import Argument, Topic
from tests.annotation.commands.test_commands import run
from tests.factories import ProjectFactory, demo_context

pytestmark = pytest.mark.django_db
ARGS = (
    "arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"
    + "".join(f"x{i}\tuniform_good\tUniforms?\tgood\tauthor{i}\t{' '.join(['word'] * (8 + 3 * i))}\n" for i in range(6))
)


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


def test_demo_from_the_shared_data(shared_data):
    ctx = demo_context(shared_data)
    get_task_type("pairwise").demo(ctx)
    assert "56 items from UKPConvArg1" in ctx.log.lines[0]
    project = Project.objects.get(slug="ukpconvarg-demo")
    assert project.items.count() == 56 and project.members.count() == 3
    assert Topic.objects.count() == 2 and Argument.objects.filter(topic__external_id__contains="school-uniform").exists()
    get_task_type("pairwise").demo(ctx)
    assert "already there" in ctx.log.lines[1] and ", 0 new." in ctx.log.lines[1]


def test_demo_falls_back_to_the_built_in_sample(tmp_path):
    ctx = demo_context(tmp_path / "missing")
    get_task_type("pairwise").demo(ctx)
    assert "28 items from the built-in sample" in ctx.log.lines[0]
    assert Project.objects.get(slug="ukpconvarg-demo").items.count() == 28
