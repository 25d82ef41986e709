"""The gold files never hand a spreadsheet a formula: hostile text gets OWASP's leading quote."""

import pytest
from django.urls import reverse

from analysis.models import AnalysisRun
from task_types.pairwise.exports import gold_file
from tests.factories import ItemFactory, ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def hostile_gold_run():
    project = ProjectFactory(slug="gold-hostile")
    payload = {"topic": "t", "prompt": "P", "stance": "s",
               "arg1": {"id": "-a", "text": "=2+5 is what you get"},
               "arg2": {"id": "b", "text": "@everyone: plain\ntext on two lines"}}
    ItemFactory(project=project, external_id="+pair", payload=payload)
    result = {
        "pairs": [{"pair": "+pair", "arg1": "-a", "arg2": "b", "gold": "a1", "strict": True, "all": True}],
        "ranking": [{"topic": "t", "argument": "-a", "pagerank": 0.25}, {"topic": "t", "argument": "b", "pagerank": 0.75}],
    }
    return AnalysisRun.objects.create(project=project, kind="pairwise_gold", status="done", result=result)


@pytest.mark.parametrize("name", ["strict.tsv", "all.tsv"])
def test_gold_pair_files(name, hostile_gold_run):
    lines = "".join(gold_file(hostile_gold_run, name)).splitlines()
    assert lines[1].split("\t") == ["'+pair", "a1", "'=2+5 is what you get", "'@everyone: plain <br/> text on two lines"]


def test_gold_rank_file_through_the_page(client, hostile_gold_run):
    client.force_login(UserFactory(role="researcher"))
    response = client.get(reverse("gold-file", args=[hostile_gold_run.project.slug, hostile_gold_run.pk, "rank.tsv"]))
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert lines[1].split("\t") == ["'-a", "0.25000", "'=2+5 is what you get"]
    assert lines[2].split("\t")[:2] == ["b", "0.75000"]
