"""The figures the comprehension page states about the demo's IBM questions, recomputed from the
shared data (as its command does) and from the reading demo project."""

from pathlib import Path

import pandas as pd
import pytest

from analysis.item_frames import item_frame
from annotation.models import Project
from annotation.task_types import get_task_type
from task_types.comprehension.cli import ibm_reference
from task_types.comprehension.demo import READING_SLUG
from task_types.comprehension.report import reference
from tests.factories import demo_context

PAGE = Path(__file__).resolve().parents[3] / "docs" / "task-types" / "comprehension.md"
PARAMS = {"reference_labels": "gold", "dev_share": 0.5, "split_seed": 0}


def stated(text: str) -> bool:
    return text in " ".join(PAGE.read_text(encoding="utf-8").split())


@pytest.mark.shared_data
def test_the_machine_reference_figures_the_page_states(shared_data):
    machine = ibm_reference(shared_data / "ibm_recorded_debating_v4")
    dev, test = machine["dev"], machine["test"]
    assert machine["n_pairs"] == 254 and dev["n_pairs"] + test["n_pairs"] == 254
    assert round(machine["positive_share"] * 254) == 180
    assert (dev["n_motions"], test["n_motions"], dev["n_pairs"], test["n_pairs"]) == (25, 24, 136, 118)
    # Every configuration tunes to all yes: its test figures are the all-yes baseline's.
    for figures in machine["configurations"].values():
        assert figures["test_accuracy"] == pytest.approx(machine["all_yes"]["test"])
        assert figures["test_f1"] == pytest.approx(machine["all_yes"]["test_f1"])
    values = {
        "70.9% positive": f"{100 * machine['positive_share']:.1f}% positive",
        "accuracy **0.691**": f"accuracy **{machine['all_yes']['test']:.3f}**",
        "precision **0.720**": f"precision **{machine['all_yes']['test_precision']:.3f}**",
        "F1 **0.837**": f"F1 **{machine['all_yes']['test_f1']:.3f}**",
        "ROC AUC **0.494**": f"ROC AUC **{machine['roc_auc']['title_whole']:.3f}**",
        "**0.481** against": f"**{machine['roc_auc']['title_sentence']:.3f}** against",
    }
    for documented, computed in values.items():
        assert documented == computed
        assert stated(documented), documented
    assert stated("judged 254 of them, 180 mentioned") and stated("split 25/24")
    assert stated("136 pairs on development, 118 on test") and stated("the other 78 are left out")


@pytest.mark.django_db
def test_the_reading_demo_gives_the_same_reference(shared_data):
    get_task_type("comprehension").demo(demo_context(shared_data))
    items = item_frame(project=Project.objects.get(slug=READING_SLUG))
    assert sum(len(t) for t in items["titles"]) == 332
    from_demo = reference(pd.DataFrame(), items, PARAMS)
    assert from_demo == ibm_reference(shared_data / "ibm_recorded_debating_v4")


@pytest.mark.shared_data
def test_the_title_counts_on_the_release_the_page_states(shared_data):
    from task_types.comprehension.cli import ibm_title_counts

    counts = ibm_title_counts(shared_data / "ibm_recorded_debating_v4")
    assert (counts["titles"], counts["labelled_positive_once"], counts["ticked_once"]) == (191, 144, 185)
    assert (counts["pairs"], counts["pairs_labelled_positive"], counts["pairs_ticked"]) == (254, 180, 244)
    rows = {
        "| titles labelled positive at least once (the paper's figure) | 248 (~56%) | 144 of 191 "
        f"({100 * counts['labelled_positive_once_share']:.1f}%) |",
        f"| titles ticked by at least one annotator | not given | 185 of 191 ({100 * counts['ticked_once_share']:.1f}%) |",
        f"| (speech, title) pairs labelled positive | 354 of 878 (40.3%) | 180 of 254 ({100 * 180 / 254:.1f}%) |",
        f"| (speech, title) pairs ticked by at least one annotator | not given | 244 of 254 ({100 * 244 / 254:.1f}%) |",
    }
    for row in rows:
        assert stated(row), row
