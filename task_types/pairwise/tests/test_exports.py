"""The gold files: the released layout of UKPConvArg1 (a zip of one file per topic), single files
that name each row's topic, and never a formula handed to a spreadsheet (OWASP's leading quote)."""

import io
import zipfile

import pytest
from django.urls import reverse

from analysis.models import AnalysisRun
from task_types.pairwise.exports import gold_file, released_name, released_zip
from task_types.pairwise.published import REFERENCES
from task_types.pairwise.selectors import run_pairs
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
        "pairs": [{"pair": "+pair", "topic": "t", "arg1": "-a", "arg2": "b", "gold": "a1", "strict": True, "all": True}],
        "ranking": [{"topic": "t", "argument": "-a", "pagerank": 0.25}, {"topic": "t", "argument": "b", "pagerank": 0.75}],
    }
    return AnalysisRun.objects.create(project=project, kind="pairwise_gold", status="done", result=result)


@pytest.mark.parametrize("name", ["strict.tsv", "all.tsv"])
def test_gold_pair_files(name, hostile_gold_run):
    lines = "".join(gold_file(hostile_gold_run, name)).splitlines()
    assert lines[1].split("\t") == ["'+pair", "a1", "'=2+5 is what you get", "'@everyone: plain <br/> text on two lines", "t"]


def test_gold_rank_file_through_the_page(client, hostile_gold_run):
    client.force_login(UserFactory(role="researcher"))
    response = client.get(reverse("gold-file", args=[hostile_gold_run.project.slug, hostile_gold_run.pk, "rank.tsv"]))
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert lines[1].split("\t") == ["'-a", "0.25000", "'=2+5 is what you get", "t"]
    assert lines[2].split("\t")[:2] == ["b", "0.75000"]


def _lines(run, name):
    return "".join(gold_file(run, name)).splitlines()


def test_single_file_exports_name_each_row_s_topic(gold):
    for name in ("strict.tsv", "all.tsv"):
        lines = _lines(gold, name)
        assert lines[0] == "#id\tlabel\ta1\ta2\ttopic"
        assert {line.split("\t")[4] for line in lines[1:]} == {"t_bad", "t_good"}
        # The pair's topic, not just any: pair ids are built from their topic's argument ids.
        assert all(line.split("\t")[0].startswith(line.split("\t")[4]) for line in lines[1:])
    rank = [line.split("\t") for line in _lines(gold, "rank.tsv")]
    assert rank[0] == ["#id", "rank", "argument", "topic"]
    by_topic: dict[str, float] = {}
    for argument, pagerank, _text, topic in rank[1:]:
        assert argument.startswith(topic)
        by_topic[topic] = by_topic.get(topic, 0) + float(pagerank)
    # PageRank is per topic: each topic's scores sum to 1, which a reader can only check by topic.
    assert by_topic == pytest.approx({"t_bad": 1.0, "t_good": 1.0}, abs=1e-4)


def _released(run) -> dict[str, list[str]]:
    data = b"".join(released_zip(run))
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.testzip() is None
        return {name: archive.read(name).decode("utf-8").split("\n") for name in archive.namelist()}


def test_released_layout_zip(gold):
    files = _released(gold)
    assert sorted(files) == [f"{folder}/{topic}.csv" for folder in ("UKPConvArg1-Ranking-CSV", "UKPConvArg1Strict-CSV")
                             for topic in ("t_bad", "t_good")]
    strict_rows = {p["pair"]: p for p in run_pairs(run=gold) if p["strict"]}
    seen = set()
    for topic in ("t_bad", "t_good"):
        strict = files[f"UKPConvArg1Strict-CSV/{topic}.csv"]
        assert strict[0] == "#id\tlabel\ta1\ta2" and strict[-1] == ""  # every line ends with a line break
        for line in strict[1:-1]:
            pair, label, a1, a2 = line.split("\t")
            assert pair.startswith(topic) and label == strict_rows[pair]["gold"] and label in ("a1", "a2")
            assert a1.endswith(" <br/> many words here.") and a2.startswith("Argument ")
            seen.add(pair)
        ranking = files[f"UKPConvArg1-Ranking-CSV/{topic}.csv"]
        assert ranking[0] == "#id\trank\targument" and ranking[-1] == ""
        rows = [line.split("\t") for line in ranking[1:-1]]
        assert len(rows) == 6 and all(len(r) == 3 and len(r[1].split(".")[1]) == 5 for r in rows)
        assert sum(float(r[1]) for r in rows) == pytest.approx(1.0, abs=1e-4)
    assert seen == set(strict_rows)


def test_released_names_follow_the_reproduced_corpus():
    renamed = "personal-pursuit-or-advancing-the-common-good-_advancing-the-comnong-good"
    reference = REFERENCES["ukpconvarg1"]
    assert released_name(renamed, "UKPConvArg1Strict-CSV", reference) == (
        "personal-pursuit-or-advancing-the-common-good-_advancing-the-commond-good.csv")
    assert released_name(renamed, "UKPConvArg1-Ranking-CSV", reference) == (
        "personal-pursuit-or-advancing-the-common-good-_advancing-the-common-good.csv")
    assert released_name(renamed, "UKPConvArg1-Ranking-CSV", None) == renamed + ".csv"
    # A topic id is user data: it never names a file outside its folder.
    assert released_name("../../etc/x y", "UKPConvArg1Strict-CSV", None) == "_.._etc_x_y.csv"
    assert released_name("", "UKPConvArg1Strict-CSV", None) == "_.csv"


def test_released_zip_through_the_page(client, gold):
    client.force_login(UserFactory(role="researcher"))
    response = client.get(reverse("gold-file", args=[gold.project.slug, gold.pk, "released.zip"]))
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"] == f'attachment; filename="{gold.project.slug}-run{gold.pk}-released.zip"'
    with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as archive:
        assert len(archive.namelist()) == 4
