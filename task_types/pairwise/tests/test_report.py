"""The pairwise gold pipeline inside the platform: run, provenance, exports, page, reason review."""

import itertools
import json

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from analysis.models import AnalysisRun
from annotation.models import Assignment, Project
from annotation.services.crowd_results import crowd_import
from task_types.pairwise.arguments_file import parse_arguments
from task_types.pairwise.corpus import arguments_import
from task_types.pairwise.selectors import run_pairs
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
FAST = {"mace_iterations": 50, "mace_restarts": 5, "mace_threshold": 0.9}
TOPICS = {"t_good": "Good", "t_bad": "Bad"}
REASONS = ["{w} prefers it: the winner names a concrete cost in pair {n}", "{w}: the better one gives an example, item {n}",
           "{w} sees clearer logic in it, pair {n}", "{w} finds the evidence stronger here, case {n}"]


def build_project():
    """Two topics of six arguments each with a latent quality; four careful workers follow it
    (with some noise), one spammer always answers a1 with the same reason."""
    rng = np.random.default_rng(7)
    lines = ["arg_id\ttopic\tdebate_title\tstance\tauthor\ttext"]
    quality = {}
    for topic, stance in TOPICS.items():
        for i in range(6):
            arg = f"{topic}_{i}"
            quality[arg] = i
            lines.append(f"{arg}\t{topic}\tSchool uniforms?\t{stance}\tx\t\"Argument {i} of {topic}, with\nmany words here.\"")
    arguments_import(rows=parse_arguments("\n".join(lines).encode() + b"\n"))
    rows = ["topic\tpair_id\targ1\targ2\tworker\tlabel\treason"]
    n = 0
    for topic in TOPICS:
        for a, b in itertools.combinations([f"{topic}_{i}" for i in range(6)], 2):
            n += 1
            for w in range(4):
                truth = "a1" if quality[a] > quality[b] else "a2"
                label = truth if rng.random() < 0.85 else rng.choice(["a1", "a2", "equal"])
                rows.append(f"{topic}\t{a}_{b}\t{a}\t{b}\tcareful{w}\t{label}\t{REASONS[w].format(w=w, n=n)}")
            rows.append(f"{topic}\t{a}_{b}\t{a}\t{b}\tspammer\ta1\tgood")
    project = ProjectFactory(slug="gold", redundancy=5)
    crowd_import(project=project, data="\n".join(rows).encode() + b"\n", filename="results.tsv")
    return project, quality


def test_pipeline_result(gold_run):
    run, quality = gold_run
    r = run.result
    assert "pairs" not in r and "_parts" not in r  # kept apart, one piece per topic
    r = {**r, "pairs": run_pairs(run=run)}
    # Read back from the pieces, in the items' order.
    assert [p["pair"] for p in r["pairs"]] == list(run.project.items.order_by("position", "pk")
                                                  .values_list("external_id", flat=True))
    assert {p["topic"] for p in run_pairs(run=run, topic="t_bad")} == {"t_bad"}
    counts = r["counts"]
    assert counts["pairs"] == 30 and counts["arguments"] == 12 and counts["rank"] == 12
    assert 27 <= counts["all"] <= 30  # at least the most certain 90%; ties in entropy stay together
    reasons = {p["reason"] for p in r["pairs"]}
    assert reasons <= {"kept", "equal_removed", "cycle", "mace_threshold"}
    assert sum(p["strict"] for p in r["pairs"]) == counts["strict"] > 0
    assert sum(p["all"] for p in r["pairs"]) == counts["all"]
    for topic in TOPICS:
        kept = [p for p in r["pairs"] if p["topic"] == topic and p["strict"]]
        graph = nx.DiGraph((p["arg1"], p["arg2"]) if p["gold"] == "a1" else (p["arg2"], p["arg1"]) for p in kept)
        assert nx.is_directed_acyclic_graph(graph)
        ranking = [x for x in r["ranking"] if x["topic"] == topic]
        assert sum(x["pagerank"] for x in ranking) == pytest.approx(1.0)
        best = min(ranking, key=lambda x: x["rank"])
        assert quality[best["argument"]] == 5
    for p in r["pairs"]:
        if p["reason"] == "cycle":
            assert p["conflict"]
    assert r["mace"]["ranking"][-1] == "mturk+spammer"
    flagged = {w["worker"]: w for w in r["reason_review"]["workers"]}
    assert set(flagged) == {"mturk+spammer"} and "reused" in flagged["mturk+spammer"]["flags"]
    assert len(r["table1"]["mean"]) == 6 and len(r["table1"]["per_topic"]) == 12
    assert 0.5 < r["human_performance"]["best_worker_accuracy"] <= 1.0


def download(client, run, name):
    response = client.get(reverse("gold-file", args=[run.project.slug, run.pk, name]))
    assert response.status_code == 200, name
    return b"".join(response.streaming_content).decode()


def test_gold_files(client, gold_run):
    run, _ = gold_run
    client.force_login(UserFactory(role="researcher"))
    strict = download(client, run, "strict.tsv").splitlines()
    assert strict[0] == "#id\tlabel\ta1\ta2\ttopic" and len(strict) == run.result["counts"]["strict"] + 1
    assert {line.split("\t")[1] for line in strict[1:]} <= {"a1", "a2"}
    assert all(len(line.split("\t")) == 5 and "with <br/> many words" in line for line in strict[1:])
    everything = download(client, run, "all.tsv").splitlines()
    assert len(everything) == run.result["counts"]["all"] + 1
    rank = download(client, run, "rank.tsv").splitlines()
    assert rank[0] == "#id\trank\targument\ttopic" and len(rank) == 13
    assert rank[1].split("\t")[0] == "t_bad_5"  # topics in order, most convincing first
    records = [json.loads(line) for line in download(client, run, "full.jsonl").splitlines()]
    assert len(records) == 30 and all(len(rec["votes"]) == 5 for rec in records)
    assert {"worker", "label", "reason", "shown_left", "competence"} <= set(records[0]["votes"][0])
    assert {vote["shown_left"] for rec in records for vote in rec["votes"]} <= {"a1", "a2"}
    whole = json.loads(download(client, run, "full.json"))
    assert whole["counts"] == run.result["counts"] and len(whole["pairs"]) == 30
    # Published figures travel only with a project that reproduces their corpus.
    assert whole["reference"] is None
    Project.objects.filter(pk=run.project.pk).update(options={"reference_corpus": "ukpconvarg1"})
    run.project.refresh_from_db()
    reference = json.loads(download(client, run, "full.json"))["reference"]
    assert reference["all"] == 16081 and reference["table1"][0]["scenario"] == "equal merged"
    client.force_login(UserFactory())
    assert client.get(reverse("gold-file", args=[run.project.slug, run.pk, "strict.tsv"])).status_code == 403


def test_gold_page_and_graph(client, gold_run):
    run, _ = gold_run
    client.force_login(UserFactory(role="admin"))
    page = client.get(reverse("gold-page", args=[run.project.slug]), {"topic": "t_good"})
    body = page.content.decode()
    assert page.status_code == 200 and f'data-testid="count-all">{run.result["counts"]["all"]}<' in body
    assert "mturk+spammer" in body and "Reject all their work and recompute" in body
    assert [r.argument for r in page.context["view"].ranking][0] == "t_good_5"
    svg = client.get(reverse("gold-graph", args=[run.project.slug, run.pk]), {"topic": "t_good"})
    assert svg["Content-Type"] == "image/svg+xml" and b"<svg" in svg.content


def test_rejecting_a_flagged_worker_recomputes_without_them(client, gold_run, django_capture_on_commit_callbacks):
    run, _ = gold_run
    client.force_login(UserFactory(role="admin"))
    spammer = get_user_model().objects.get(username="mturk+spammer")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("gold-reject-worker", args=[run.project.slug, spammer.pk]))
    assert response.status_code == 302
    assert set(Assignment.objects.filter(worker=spammer).values_list("status", flat=True)) == {"rejected"}
    latest = AnalysisRun.objects.filter(kind="pairwise_gold").order_by("-pk").first()
    assert latest.pk != run.pk and latest.status == "done" and latest.params == run.params
    assert latest.annotations_seen == run.annotations_seen - 30
    assert "mturk+spammer" not in latest.result["mace"]["competence"]


def test_examples_are_the_first_three_reasons_suspicious_for_a_flagged_cause():
    from analysis.methods.reasons import CAUSES
    from task_types.pairwise.report import PairwiseGoldReport

    rng = np.random.default_rng(3)
    n = 400
    examples = pd.DataFrame({"worker": rng.choice(["w1", "w2", "w3", "w4"], n), "reason": [f"r{i}" for i in range(n)],
                             **{c: rng.random(n) < 0.3 for c in CAUSES}})
    flags = pd.Series({"w1": ["reused"], "w2": ["nonsense", "off_task"], "w3": []})
    shown = PairwiseGoldReport._examples(examples, flags)
    for worker, causes in flags.items():
        # One worker at a time, as a reader would pick them.
        expected = examples[(examples["worker"] == worker) & examples[causes].any(axis=1)]["reason"].head(3).tolist()
        assert shown.get(worker, []) == expected
    assert len(shown["w1"]) == 3 and "w4" not in shown and "w3" not in shown
