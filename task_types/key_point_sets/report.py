"""The key-point set ranking: the systems ranked by Bradley–Terry strength over the judges'
choices (a set chosen among k shown wins over each of the other k − 1), with bootstrap intervals
of strengths and ranks, and how often each system's set was chosen when shown."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from analysis.methods.bradley_terry import Choice, bradley_terry
from analysis.reports import Param, Progress, Report, ReportInput

SYSTEM_COLUMNS = ["rank", "system", "strength", "low", "high", "rank_low", "rank_high", "chosen", "shown",
                  "chosen_share", "wins", "comparisons"]


def choices_of(data: ReportInput) -> list[Choice]:
    """Each answer as the system chosen among the systems shown (from the items' gold)."""
    if data.frame.empty:
        return []
    systems = {item: (gold or {}).get("systems") or {} for item, gold in zip(data.items["item"], data.items["gold"],
                                                                             strict=True)}
    sets = dict(zip(data.items["item"], data.items["sets"], strict=True)) if "sets" in data.items else {}
    out = []
    for item, label in zip(data.frame["item"], data.frame["label"], strict=True):
        names = systems.get(item, {})
        shown = tuple(names.get(i, i) for i in sets.get(item, names))
        out.append(Choice(chosen=names.get(label, label), shown=shown))
    return out


class KeyPointSetRanking(Report):
    kind = "key_point_sets"
    title = "Key-point set ranking (Bradley–Terry)"
    task_types = ("key_point_sets",)
    page_label = "System ranking"
    template = "key_point_sets/report.html"
    files = {"systems": "Systems with their strengths and intervals (CSV)"}
    params = (
        Param("n_boot", int, 1000, "bootstrap samples of the judges' choices", minimum=0, maximum=20000,
              label="Bootstrap samples", group="Intervals"),
        Param("level", float, 0.95, "coverage of the intervals", minimum=0.5, maximum=0.999, label="Interval level",
              group="Intervals"),
        Param("prior", float, 0.5, "virtual wins each way for every pair of systems compared; keeps a system that "
              "never (or always) wins finite; 0 for the plain maximum-likelihood fit", minimum=0, maximum=10,
              label="Prior wins per pair", group="Model"),
        Param("seed", int, 0, "seed of the bootstrap", label="Seed", group="Intervals"),
    )

    def run(self, data: ReportInput, params: Mapping[str, Any], progress: Progress) -> dict[str, Any]:
        choices = choices_of(data)
        if not choices:
            return {"empty": True, "n_annotations": 0}
        progress(0.2, "Bradley–Terry fit and bootstrap")
        result = bradley_terry(choices, prior=params["prior"], n_boot=params["n_boot"], level=params["level"],
                               seed=params["seed"])
        systems = [{**asdict(item), "system": item.name, "chosen_share": item.chosen / item.shown if item.shown else None}
                   for item in result.items]
        return {"systems": systems, "n_annotations": len(choices), "n_items": int(data.frame["item"].nunique()),
                "n_boot": result.n_boot, "level": result.level, "prior": result.prior}

    def file(self, name: str, result: Mapping[str, Any]) -> tuple[str, list[str], list[dict[str, Any]]]:
        return "systems.csv", SYSTEM_COLUMNS, list(result.get("systems") or [])
