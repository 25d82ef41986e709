"""The figures the manual and the README state for the counter-speech demo, computed from the
demo itself."""

import re
from pathlib import Path

import pytest

from analysis.frames import item_frame
from analysis.methods.counter_speech import evaluate
from annotation.models import Project
from annotation.task_types import get_task_type
from task_types.counter_speech.report import baseline_questions, motion_questions
from tests.factories import demo_context

ROOT = Path(__file__).resolve().parents[3]
ROWS = {"Jensen–Shannon": "js", "cosine": "cosine", "MI": "mi", "c-MI": "cmi", "shared n-grams": "ngrs"}


def _stated() -> dict[str, tuple[float, float]]:
    """The manual's table of the demo's figures: method → (top-1, MRR)."""
    text = (ROOT / "docs" / "task-types" / "counter-speech.md").read_text()
    return {name: (float(a), float(m))
            for name, a, m in re.findall(r"^\| ([^|]+?) \| (0\.\d{3}) \| (0\.\d{3}) \|$", text, re.M)}


@pytest.mark.django_db
@pytest.mark.shared_data
def test_the_demo_figures_are_those_the_manual_states(shared_data):
    get_task_type("counter_speech").demo(demo_context(shared_data))
    items = item_frame(project=Project.objects.get(slug="counter-speech-demo"))
    stated = _stated()
    assert set(stated) == {*ROWS, "random ranking"}
    for build in (baseline_questions, motion_questions):
        result = evaluate(build(items)).to_dict()
        assert result["all"]["questions"] == 78
        for name, method in ROWS.items():
            got = result["methods"][method]["settings"]["all"]
            assert (round(got["accuracy"], 3), round(got["mrr"], 3)) == stated[name], (build.__name__, name)
        assert (round(result["all"]["random_accuracy"], 3), round(result["all"]["random_mrr"], 3)) == \
            stated["random ranking"]
    readme = " ".join((ROOT / "README.md").read_text().split())
    js_top1 = evaluate(baseline_questions(items), methods=["js"]).scores["js"]["all"].accuracy
    assert f"78 two-candidate questions Jensen–Shannon picks the counter in {js_top1:.3f}, chance 0.500" in readme
