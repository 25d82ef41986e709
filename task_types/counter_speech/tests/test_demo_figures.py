"""The figures the manual and the README state for the counter-speech demo, computed from the
demo itself."""

import re
from pathlib import Path

import pytest

from analysis.item_frames import item_frame
from analysis.methods.counter_speech import evaluate, motion_split
from annotation.models import Project
from annotation.task_types import get_task_type
from task_types.counter_speech.report import PAPER_TABLE3, baseline_questions, baselines
from tests.factories import demo_context

ROOT = Path(__file__).resolve().parents[3]
ROWS = {"Jensen–Shannon": "js", "cosine": "cosine", "MI": "mi", "c-MI": "cmi", "shared n-grams": "ngrs"}
PAIR = r"(0\.\d{3}) / (0\.\d{3})"


def _stated() -> dict[str, list[tuple[float, float]]]:
    """The manual's table of the demo's figures: method → [(top-1, MRR)] for the paper's terms
    on the test questions, the evaluated terms on the same, and on all questions; then the
    paper's (top-1, MRR)."""
    text = (ROOT / "docs" / "task-types" / "counter-speech.md").read_text()
    rows = re.findall(rf"^\| ([^|]+?) \| {PAIR} \| {PAIR} \| {PAIR} \| (0\.\d+) / (0\.\d+|–) \|$", text, re.M)
    return {name: [(float(a), float(m)) for a, m in zip(values[0:6:2], values[1:6:2], strict=True)]
            + [(float(values[6]), float(values[7]) if values[7] != "–" else float("nan"))]
            for name, *values in rows}


def _pairs(result, method=None):
    if method is None:
        return round(result["all"]["random_accuracy"], 3), round(result["all"]["random_mrr"], 3)
    got = result["methods"][method]["settings"]["all"]
    return round(got["accuracy"], 3), round(got["mrr"], 3)


@pytest.mark.django_db
@pytest.mark.shared_data
def test_the_demo_figures_are_those_the_manual_states(shared_data):
    get_task_type("counter_speech").demo(demo_context(shared_data))
    items = item_frame(project=Project.objects.get(slug="counter-speech-demo"))
    stated = _stated()
    assert set(stated) == {*ROWS, "random ranking"}
    for candidates in ("shown", "motion"):
        paper = baselines(items, {"candidates": candidates, "terms": "training", "split_seed": 2020})
        every = baselines(items, {"candidates": candidates, "terms": "evaluated", "split_seed": 2020})
        assert paper["split"] == {"seed": 2020, "motions": {"train": 29, "validation": 10, "test": 10},
                                  "training_questions": 47}
        assert (paper["all"]["questions"], paper["training_pairs"], paper["vocabulary"]) == (17, 94, 3584)
        assert every["all"]["questions"] == 78
        part = items["motion"].astype(str).map(motion_split(items["motion"].astype(str), seed=2020))
        same = evaluate(baseline_questions(items[part == "test"]), terms="evaluated").to_dict()
        for name, method in ROWS.items():
            assert [_pairs(paper, method), _pairs(same, method), _pairs(every, method)] == stated[name][:3], \
                (candidates, name)
            published = PAPER_TABLE3[method]["all"]
            assert stated[name][3] == (published[0] / 100, published[1])
        assert [_pairs(paper), _pairs(same), _pairs(every)] == stated["random ranking"][:3]
    readme = " ".join((ROOT / "README.md").read_text().split())
    js_top1 = baselines(items, {"candidates": "shown", "terms": "training", "split_seed": 2020})
    assert (f"on the 17 two-candidate questions of the demo's test motions Jensen–Shannon picks the counter in "
            f"{js_top1['methods']['js']['settings']['all']['accuracy']:.3f}, chance 0.500") in readme
