"""The response-scoring report on a small hand-made project: rater agreement against
scikit-learn and the krippendorff package, the content scores of each transcript against the
pure module, their relation to the human scores, the WER per prompt type, and the exports."""

from __future__ import annotations

import csv
import io
import json

import krippendorff
import numpy as np
import pandas as pd
import pytest
from django.utils import timezone
from scipy.stats import pearsonr
from sklearn.metrics import cohen_kappa_score

from analysis.methods.content_scores import content_scores, corpus_word_error_rate, score_relation
from analysis.services import analysis_run_create, analysis_run_execute
from annotation.models import Assignment
from annotation.services import annotation_submit
from task_types.response_scoring.services import responses_import
from task_types.response_scoring.tests.factories import SAMPLE, TASK
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
# Three raters' scores of the twelve SAMPLE responses (R01 … R12), made up for the test.
SCORES = {
    "w1": [4, 2, 1, 4, 3, 1, 4, 2, 3, 1, 4, 2],
    "w2": [3, 2, 1, 4, 3, 2, 4, 1, 3, 1, 4, 2],
    "w3": [4, 3, 1, 3, 4, 1, 3, 2, 2, 1, 4, 1],
}


def scored_project():
    project = ProjectFactory(task_type="response_scoring", redundancy=3, options=TASK.clean_options({}))
    responses_import(project=project, folder=SAMPLE)
    now = timezone.now()
    items = list(project.items.order_by("external_id"))
    for name, scores in SCORES.items():
        worker = UserFactory(username=name)
        for item, score in zip(items, scores, strict=True):
            a = Assignment.objects.create(item=item, project=project, worker=worker, assigned_at=now,
                                          expires_at=now + timezone.timedelta(minutes=30))
            item.n_active += 1
            item.save(update_fields=["n_active"])
            annotation_submit(assignment=a, worker=worker, data={"score": str(score)})
    return project


def test_the_report_s_numbers_by_hand(client):
    project = scored_project()
    run = analysis_run_execute(run_id=analysis_run_create(project=project, kind="response_scoring", enqueue=False).pk)
    assert run.status == "done", run.error
    result = run.result

    agreement = result["agreement"]
    pairs = {(p["worker_a"], p["worker_b"]): p for p in agreement["pairs"]}
    assert len(pairs) == 3
    for (a, b), pair in pairs.items():
        expected = cohen_kappa_score(SCORES[a], SCORES[b], weights="quadratic")
        assert pair["qwk"] == pytest.approx(expected, abs=1e-6)
        assert pair["pearson_r"] == pytest.approx(pearsonr(SCORES[a], SCORES[b])[0], abs=1e-6)
    qwks = [cohen_kappa_score(SCORES[a], SCORES[b], weights="quadratic") for a, b in (("w1", "w2"), ("w1", "w3"), ("w2", "w3"))]
    assert agreement["qwk_mean"] == pytest.approx(np.mean(qwks), abs=1e-6)
    assert agreement["alpha_ordinal"] == pytest.approx(
        krippendorff.alpha(np.array(list(SCORES.values()), dtype=float), level_of_measurement="ordinal"), abs=1e-6)
    assert agreement["study_kappa"] == 0.69

    # The content scores are the pure module's on each transcript of every response.
    prompts = pd.read_csv(SAMPLE / "responses.csv", keep_default_na=False)
    references = pd.read_csv(SAMPLE / "references.csv")
    rows = {r["response"]: r for r in result["scores"]}
    exact = {}
    assert len(rows) == 12 and rows["SAMPLE-R01"]["human_scores"] == "4|3|4"
    for kind, column in (("asr", "asr_transcript"), ("manual", "transcript")):
        expected = content_scores(references=references, responses=prompts.rename(columns={column: "text"})[
            ["response_id", "prompt_id", "text"]]).set_index("response_id")
        exact[kind] = expected
        for name in ("base", "new", "cva"):
            ours = [rows[r][f"{name}_{kind}"] for r in expected.index]
            assert ours == pytest.approx(expected[name].to_list(), abs=1e-6)
    assert rows["SAMPLE-R04"]["new_manual"] > rows["SAMPLE-R03"]["new_manual"]

    # The relation to the human scores (the mean of the three raters) per score and transcript.
    human = np.mean(np.array(list(SCORES.values())), axis=0)
    new = next(r for r in result["relations"] if r["score"] == "new")
    table = pd.DataFrame(result["scores"])
    # κ is held out: the mapping is fitted in cross-validation with folds by speaker (the SAMPLE
    # set's 6 speakers, 5 folds); the in-sample κ is reported beside it, labelled so.
    speakers = prompts.set_index("response_id").loc[table["response"], "speaker"].to_numpy()
    expected = score_relation(human, exact["manual"]["new"].to_numpy(), table["words_manual"], groups=speakers)
    assert new["manual"]["r"] == pytest.approx(expected.pearson_r, abs=1e-6)
    assert new["manual"]["kappa"] == pytest.approx(expected.qwk, abs=1e-6)
    assert new["manual"]["kappa_in_sample"] == pytest.approx(expected.qwk_in_sample, abs=1e-6)
    assert (new["manual"]["folds"], new["manual"]["speakers"], expected.folds) == (5, 6, 5)
    assert new["manual"]["kappa"] != new["manual"]["kappa_in_sample"]
    in_sample = score_relation(human, exact["manual"]["new"].to_numpy(), table["words_manual"], groups=speakers)
    assert new["manual"]["kappa_in_sample"] == pytest.approx(
        cohen_kappa_score(np.clip(np.floor(human + 0.5), 1, 4).astype(int),
                          in_sample.mapping.apply(exact["manual"]["new"].to_numpy()), weights="quadratic"), abs=1e-6)
    assert new["manual"]["partial_r"] == pytest.approx(expected.partial_r, abs=1e-6)
    assert (new["asr"]["study_r"], new["asr"]["study_kappa"], new["manual"]["study_partial_r"]) == (0.655, 0.540, 0.460)

    wer = {w["prompt_type"]: w for w in result["wer"]}
    by_hand = corpus_word_error_rate(references=prompts["transcript"].tolist(), hypotheses=prompts["asr_transcript"].tolist(),
                                     groups=prompts["prompt_id"].map({"SAMPLE-P1": "narration"}).fillna("summary").tolist())
    assert wer["narration"]["wer"] == pytest.approx(by_hand.set_index("group").at["narration", "wer"], abs=1e-6)
    assert 0 < wer["narration"]["wer"] < 0.2 and wer["summary"]["study_wer"] == 0.294

    # The page, and every score per response as CSV and as JSON Lines.
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    page = client.get(f"/projects/{project.slug}/reports/response_scoring/").content.decode()
    assert "0.69" in page and "0.655" in page and "29.4%" in page
    # The experts' agreement as the poster labels it (it names no kappa); κ held out and in-sample.
    assert "k = 0.69" in page and "Agreement between two expert raters: k = 0.69" in page
    assert "Quadratic weighted kappa, mean" in page  # ours, per rater pair
    assert "κ held out" in page and "κ in-sample" in page and "5 folds by speaker" in page
    assert "held-out κ from 5 folds over 6 speakers" in page
    csv_rows = list(csv.DictReader(io.StringIO(client.get(
        f"/projects/{project.slug}/reports/response_scoring/runs/{run.pk}/files/scores").content.decode())))
    assert len(csv_rows) == 12 and {"base_asr", "new_manual", "human_scores"} <= set(csv_rows[0])
    lines = client.get(f"/projects/{project.slug}/response-scores/runs/{run.pk}/scores.jsonl").content.decode().splitlines()
    assert [json.loads(line)["response"] for line in lines] == [r["response"] for r in result["scores"]]


def test_stemming_and_stop_words_change_the_scores_as_options():
    project = scored_project()
    plain = analysis_run_execute(run_id=analysis_run_create(project=project, kind="response_scoring", enqueue=False).pk)
    stemmed = analysis_run_execute(run_id=analysis_run_create(project=project, kind="response_scoring", enqueue=False,
                                                              params={"stem": True, "stopwords": True}).pk)
    assert stemmed.status == "done", stemmed.error
    a = {r["response"]: r["new_manual"] for r in plain.result["scores"]}
    b = {r["response"]: r["new_manual"] for r in stemmed.result["scores"]}
    assert a != b


def test_lemmatisation_is_an_option_of_the_report():
    project = scored_project()
    plain = analysis_run_execute(run_id=analysis_run_create(project=project, kind="response_scoring", enqueue=False).pk)
    lemmas = analysis_run_execute(run_id=analysis_run_create(project=project, kind="response_scoring", enqueue=False,
                                                             params={"lemmatize": True}).pk)
    assert lemmas.status == "done", lemmas.error
    assert lemmas.result["scores"] != plain.result["scores"]
    prompts = pd.read_csv(SAMPLE / "responses.csv", keep_default_na=False)
    references = pd.read_csv(SAMPLE / "references.csv")
    expected = content_scores(references=references, lemmatize=True, responses=prompts.rename(
        columns={"transcript": "text"})[["response_id", "prompt_id", "text"]]).set_index("response_id")
    rows = {r["response"]: r for r in lemmas.result["scores"]}
    for name in ("base", "new", "cva"):
        assert [rows[r][f"{name}_manual"] for r in expected.index] == pytest.approx(expected[name].to_list(), abs=1e-6)


def test_the_manual_states_the_held_out_and_in_sample_figures_of_the_sample_set():
    import re
    from pathlib import Path

    project = scored_project()
    run = analysis_run_execute(run_id=analysis_run_create(project=project, kind="response_scoring", enqueue=False).pk)
    assert run.status == "done", run.error
    text = (Path(__file__).resolve().parents[3] / "docs" / "task-types" / "response-scoring.md").read_text()
    numbers = r" \| ".join([r"(\d\.\d{3})"] * 6)
    stated = {name: [float(v) for v in values] for name, *values in re.findall(
        rf"^\| (Base ROUGE|New ROUGE|CVA) \| {numbers} \|$", text, re.M)}
    labels = {"base": "Base ROUGE", "new": "New ROUGE", "cva": "CVA"}
    assert set(stated) == set(labels.values())
    for row in run.result["relations"]:
        got = [round(row[kind][key], 3) for kind in ("asr", "manual") for key in ("r", "kappa", "kappa_in_sample")]
        assert got == stated[labels[row["score"]]], row["score"]
        assert row["manual"]["folds"] == 5 and row["manual"]["speakers"] == 6
