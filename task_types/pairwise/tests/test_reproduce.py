"""``reproduce_ukpconvarg`` on the real crowd data: the corpus sizes and Table 1 it computes, the
released layout of its files against the released corpus, and the figures the README and the
manual print."""

import io
import re
import tarfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.urls import reverse
from scipy.stats import spearmanr

from analysis.models import AnalysisRun
from analysis.presentation import shown_first_frame
from annotation.models import Assignment
from task_types.pairwise.published import PAPER_TABLE1, RANKING_FOLDER, STRICT_FOLDER
from task_types.pairwise.tests.test_gold_page import _table1_cells
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.shared_data]
ROOT = Path(__file__).resolve().parents[3]
RELEASE = ROOT / "tests" / "fixtures" / "ukpconvarg1_release" / "release.tar.gz"
# Table 1 as this pipeline computes it on the shared data (seed 1): pairs kept, pairs ignored,
# transitivity average and maximum, averaged over the 32 topics.
OURS_TABLE1 = {
    ("no equal", "random"): (356.22, 43.38, 11.15, 24.78),
    ("no equal", "ascending"): (336.62, 62.97, 11.18, 25.38),
    ("no equal", "descending"): (364.84, 34.75, 10.89, 24.06),
    ("equal merged", "random"): (341.84, 160.69, 6.44, 14.75),
    ("equal merged", "ascending"): (289.53, 213.00, 5.85, 13.03),
    ("equal merged", "descending"): (369.94, 132.59, 6.84, 15.56),
}
FIELDS = ("pairs_kept", "pairs_ignored", "transitivity_mean", "transitivity_max")


def _release() -> dict[str, str]:
    with tarfile.open(RELEASE) as archive:
        return {m.name: archive.extractfile(m).read().decode("utf-8") for m in archive.getmembers() if m.isfile()}


def _rows(text: str) -> list[list[str]]:
    assert text.endswith("\n")
    return [line.split("\t") for line in text.split("\n")[1:-1]]


def _figure(text: str, pattern: str) -> int:
    match = re.search(pattern, text)
    assert match, pattern
    return int(match.group(1).replace(",", ""))


def test_reproduce_ukpconvarg(shared_data, tmp_path, client):
    out = io.StringIO()
    call_command("reproduce_ukpconvarg", str(shared_data / "ukpconvarg1"), "--out", str(tmp_path), stdout=out)
    text = out.getvalue()
    run = AnalysisRun.objects.get(kind="pairwise_gold")
    counts = run.result["counts"]
    assert (counts["all"], counts["strict"], counts["rank"]) == (16081, 11675, 1052)
    assert "16,081" in text and "11,675" in text
    assert re.search(r"UKPConvArgStrict \(DAG, no equal\)\s+11,650\s+11,675", text)  # the released count, no ~
    accuracy = run.result["human_performance"]["best_worker_accuracy"]
    assert re.search(rf"best-ranked worker vs gold\s+0\.935\s+{accuracy:.3f}\s+\(paper: its pilot study", text)
    # The release's answers keep their recorded order: its A1, the pair's first argument, was on
    # the left for every worker, so nothing was drawn and every reader takes the import order.
    project = run.project
    assert not Assignment.objects.filter(project=project, shown_order__isnull=False).exists()
    assert set(shown_first_frame(project=project)["first"]) == {"a1"}

    # Table 1: ours per configuration, and the paper's printed beside it.
    mean = {(r["scenario"], r["strategy"]): r for r in run.result["table1"]["mean"]}
    for config, values in OURS_TABLE1.items():
        assert tuple(round(mean[config][f], 2) for f in FIELDS) == values, config
        paper = next(r for r in PAPER_TABLE1 if (r["scenario"], r["strategy"]) == config)
        # Within a tenth of the paper's figure: the same data, the same method.
        assert all(abs(mean[config][f] - paper[f]) <= 0.1 * paper[f] for f in FIELDS), config
    printed = text[text.index("Table 1, averaged"):]
    assert re.search(r"no equal\s+descending\s+paper\b.*\b10\.8\b.*\b24\.0\b.*\b364\b.*\b35\b", printed)
    assert re.search(r"descending\s+ours\b.*\b10\.89\b.*\b24\.06\b.*\b364\.84\b.*\b34\.75\b", printed)

    client.force_login(UserFactory(role="researcher"))
    cells = _table1_cells(client.get(reverse("gold-page", args=["ukpconvarg1"])).content.decode())
    assert cells["t1-no-equal-descending-paper-transitivity_mean"] == "10.8"
    assert cells["t1-no-equal-descending-ours-transitivity_mean"] == "10.89"
    assert cells["t1-equal-merged-ascending-ours-pairs_ignored"] == "213.00"

    # The released layout: the release's file names, headers and columns; its content where ours agrees.
    release = _release()
    ours = {str(p.relative_to(tmp_path)): p.read_text(encoding="utf-8")
            for folder in (STRICT_FOLDER, RANKING_FOLDER) for p in (tmp_path / folder).iterdir()}
    assert len([n for n in ours if n.startswith(STRICT_FOLDER)]) == 32 == len([n for n in ours if n.startswith(RANKING_FOLDER)])
    labels = [line.split("\t") for line in release["UKPConvArg1Strict-CSV.labels.tsv"].splitlines()[1:]]
    assert sorted(ours) == sorted({f"{STRICT_FOLDER}/{f}" for f, _, _ in labels}
                                  | {n for n in release if n.startswith(RANKING_FOLDER)})
    for name, content in ours.items():
        assert content.split("\n")[0] == ("#id\tlabel\ta1\ta2" if name.startswith(STRICT_FOLDER) else "#id\trank\targument")
        assert all(len(r) == (4 if name.startswith(STRICT_FOLDER) else 3) for r in _rows(content)), name

    ours_strict = {r[0]: r for name, content in ours.items() if name.startswith(STRICT_FOLDER) for r in _rows(content)}
    assert len(ours_strict) == 11675
    same = [pair for _, pair, label in labels if pair in ours_strict and ours_strict[pair][1] == label]
    assert (len(labels), len([p for _, p, _ in labels if p in ours_strict]), len(same)) == (11650, 11613, 11612)
    # Where a released pair is ours with its label, the line is the release's byte for byte.
    sample = f"{STRICT_FOLDER}/christianity-or-atheism-_atheism.csv"
    released_lines = release[sample].split("\n")[1:-1]
    ours_lines = set(ours[sample].split("\n")[1:-1])
    matching = [line for line in released_lines if line.split("\t")[0] in same]
    assert len(matching) >= 0.99 * len(released_lines) and set(matching) <= ours_lines

    rhos = []
    for name in (n for n in release if n.startswith(RANKING_FOLDER)):
        theirs, mine = _rows(release[name]), {r[0]: r for r in _rows(ours[name])}
        assert {r[0] for r in theirs} == set(mine), name
        assert all(mine[r[0]][2] == r[2] for r in theirs), name  # the texts, byte for byte
        rhos.append(spearmanr([float(r[1]) for r in theirs], [float(mine[r[0]][1]) for r in theirs]).statistic)
    assert sum(rhos) / len(rhos) > 0.99 and min(rhos) > 0.9

    # The README and the manual print what this run computed.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    manual = (ROOT / "docs" / "task-types" / "pairwise.md").read_text(encoding="utf-8")
    assert _figure(readme, r"([\d,]+) pairs in UKPConvArgAll") == counts["all"]
    assert _figure(readme, r"([\d,]+) in UKPConvArgStrict") == counts["strict"]
    assert _figure(readme, r"([\d,]+) of the released ([\d,]+)") == len(same)
    assert _figure(readme, r"all ([\d,]+) arguments ranked") == counts["rank"]
    assert _figure(manual, r"\| UKPConvArgAll \(pairs MACE keeps\) \| [\d,]+ \| ([\d,]+) \|") == counts["all"]
    assert _figure(manual, r"\| UKPConvArgStrict \(DAG, no equal\) \| 11,650 \| ([\d,]+) \|") == counts["strict"]
    assert re.search(rf"\| best-ranked worker vs gold \| 0\.935 \(pilot study\) \| {accuracy:.3f} \|", manual)
    assert _figure(manual, r"\| UKPConvArgRank \(arguments\) \| [\d,]+ \| ([\d,]+) \|") == counts["rank"]
    assert _figure(manual, r"([\d,]+) of the released 11,650 Strict pairs") == len(same)
    for (scenario, strategy), values in OURS_TABLE1.items():
        row = re.search(rf"\| {scenario} \| {strategy} \| ours \|([^\n]+)", manual)
        assert row, (scenario, strategy)
        assert [float(c) for c in row.group(1).split("|")[:-1]] == list(values), (scenario, strategy)
