"""A gold run keeps its pairs and argument texts apart from its result, one piece per topic: the
page reads one topic, the files read them all in order, and runs stored before still work."""

import random
import string

import pytest
from django.urls import reverse

from analysis.models import AnalysisRun, RunPart
from analysis.services import analysis_run_create
from jobs import services
from task_types.pairwise.report import PAIRS, TEXTS
from task_types.pairwise.selectors import GRAPH_ARGUMENTS, gold_topic, run_pairs
from task_types.pairwise.tests.test_report import FAST, build_project
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def files(client, run):
    return {name: b"".join(client.get(reverse("gold-file", args=[run.project.slug, run.pk, name])).streaming_content)
            for name in ("strict.tsv", "all.tsv", "rank.tsv", "full.jsonl")}


def test_pieces_per_topic_and_what_the_result_says_of_them(gold):
    parts = RunPart.objects.filter(run=gold)
    assert sorted(parts.filter(name=PAIRS).values_list("key", flat=True)) == gold.result["pair_topics"] == ["t_bad", "t_good"]
    assert sorted(parts.filter(name=TEXTS).values_list("key", flat=True)) == ["t_bad", "t_good"]
    pairs = run_pairs(run=gold)
    assert len(pairs) == gold.result["counts"]["pairs"]
    reasons = dict(gold.result["pair_reasons"])
    assert sum(reasons.values()) == len(pairs) and reasons["kept"] == gold.result["counts"]["strict"]
    # Deleting a run deletes its pieces.
    gold.delete()
    assert not RunPart.objects.exists()


def test_a_run_stored_with_its_pairs_in_the_result_reads_the_same(client, gold):
    client.force_login(UserFactory(role="admin"))
    page = client.get(reverse("gold-page", args=[gold.project.slug]), {"topic": "t_good"}).context["view"]
    before = files(client, gold)
    # The same run as it was stored before the pieces: pairs inside the result, no pieces.
    result = {k: v for k, v in gold.result.items() if k not in ("pair_topics", "pair_reasons")}
    AnalysisRun.objects.filter(pk=gold.pk).update(result={**result, "pairs": run_pairs(run=gold)})
    RunPart.objects.filter(run=gold).delete()
    gold.refresh_from_db()
    legacy = client.get(reverse("gold-page", args=[gold.project.slug]), {"topic": "t_good"}).context["view"]
    assert legacy == page
    assert files(client, gold) == before
    svg = client.get(reverse("gold-graph", args=[gold.project.slug, gold.pk]), {"topic": "t_good"})
    assert svg.status_code == 200 and "t_good_5 (rank 1)" in svg.content.decode()


def test_a_large_topic_draws_its_most_convincing_arguments():
    n = GRAPH_ARGUMENTS + 20
    args = [f"x{i:02d}" for i in range(n)]  # x00 most convincing
    rows = [{"pair": f"{a}_{b}", "topic": "big", "arg1": a, "arg2": b, "gold": "a1", "strict": True, "all": True,
             "reason": "kept"} for i, a in enumerate(args) for b in args[i + 1:]]
    run = AnalysisRun.objects.create(
        project=ProjectFactory(task_type="pairwise"), kind="pairwise_gold", status=AnalysisRun.Status.DONE,
        result={"pair_topics": ["big"], "pair_reasons": [["kept", len(rows)]],
                "ranking": [{"topic": "big", "argument": a, "rank": i + 1, "pagerank": 1 / n} for i, a in enumerate(args)]})
    RunPart.objects.create(run=run, name=PAIRS, key="big", position=0, rows=rows, indexes=list(range(len(rows))))
    view = gold_topic(run=run, topic="big")
    assert len(view.ranking) == n and view.graph_arguments == GRAPH_ARGUMENTS
    assert view.graph.arguments == GRAPH_ARGUMENTS
    assert {node.id for node in view.graph.nodes} == set(args[:GRAPH_ARGUMENTS])


def test_pieces_are_not_kept_when_the_run_was_given_up_meanwhile(monkeypatch, django_capture_on_commit_callbacks):
    project, _ = build_project()
    monkeypatch.setattr(services, "job_finish", lambda **fields: False)
    with django_capture_on_commit_callbacks(execute=True):
        run = analysis_run_create(project=project, kind="pairwise_gold", params=FAST)
    assert not RunPart.objects.filter(run=run).exists()


def test_the_admin_lists_runs_without_reading_their_results(client, gold):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.force_login(UserFactory(role="admin", is_superuser=True))
    with CaptureQueriesContext(connection) as queries:
        listing = client.get(reverse("admin:analysis_analysisrun_changelist"))
    assert listing.status_code == 200 and str(gold.pk) in listing.content.decode()
    runs = [q["sql"] for q in queries.captured_queries if 'FROM "analysis_analysisrun"' in q["sql"]]
    assert runs and all('"analysis_analysisrun"."result"' not in sql for sql in runs)
    detail = client.get(reverse("admin:analysis_analysisrun_change", args=[gold.pk]))
    assert detail.status_code == 200 and "pair_topics" in detail.content.decode()


def test_flagged_workers_are_listed_a_page_at_a_time(client, gold):
    client.force_login(UserFactory(role="admin"))
    workers = [{"worker": f"spam{i}", "reasons": 9, "mace_rank": i, "competence": 0.1, "flags": ["reused"],
                "examples": ["same"], **{f"{c}_share": 0.0 for c in ("reused", "copied", "nonsense", "off_task")}}
               for i in range(250)]
    result = {**gold.result, "reason_review": {**gold.result["reason_review"], "workers": workers}}
    AnalysisRun.objects.filter(pk=gold.pk).update(result=result)
    url = reverse("gold-page", args=[gold.project.slug])
    first = client.get(url).content.decode()
    assert first.count('<td class="nowrap">spam') == 100 and "1–100 of 250 flagged workers" in first
    last = client.get(url, {"fpage": 3}).content.decode()
    assert last.count('<td class="nowrap">spam') == 50 and "spam249<" in last and "spam0<" not in last


def test_a_topic_of_any_length_is_a_piece():
    # Random letters do not compress: past about 2,700 bytes no index entry could hold the key.
    topic = "".join(random.Random(5).choice(string.ascii_letters) for _ in range(6000))
    rows = [{"pair": "a_b", "topic": topic, "arg1": "a", "arg2": "b", "gold": "a1", "strict": True, "all": True,
             "reason": "kept"}]
    run = AnalysisRun.objects.create(
        project=ProjectFactory(task_type="pairwise"), kind="pairwise_gold", status=AnalysisRun.Status.DONE,
        result={"pair_topics": [topic], "pair_reasons": [["kept", 1]],
                "ranking": [{"topic": topic, "argument": a, "rank": i + 1, "pagerank": 0.5} for i, a in enumerate("ab")]})
    RunPart.objects.create(run=run, name=PAIRS, key=topic, position=0, rows=rows, indexes=[0])
    RunPart.objects.create(run=run, name=TEXTS, key=topic, position=1, rows=[{"argument": "a", "text": "A"}], indexes=[])
    view = gold_topic(run=run, topic=topic)
    assert view.topic == topic and view.graph.pairs == 1 and view.ranking[0].text == "A"
