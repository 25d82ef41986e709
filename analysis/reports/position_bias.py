"""Position bias: the share of answers that chose the option shown first, against what the shown
orders predict with no bias (``analysis.methods.position_bias``), overall and per worker.

It applies to every task type that shows options in a drawn order (``TaskType.shown_order_parts``):
the options of the type's first part are the ones an answer chooses among.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict
from typing import Any, ClassVar

import pandas as pd

from analysis.methods.position_bias import FirstShare, position_bias
from analysis.plots import first_shown_svg
from analysis.reports import Param, Progress, Report, ReportInput
from annotation.task_types import get_task_type

WORKER_COLUMNS = ["worker", "answers", "chose_first", "share", "low", "high", "expected", "tested", "flagged"]


def _share(share: FirstShare) -> dict[str, Any]:
    row = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in asdict(share).items()}
    return {**row, "flagged": share.flagged}


def answers_and_choices(frame: pd.DataFrame, *, level: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The long frame (with ``first``) as the method's two inputs: one row per answer, and one
    per option an answer chose (its label; for a set, the options marked 1)."""
    answers = frame.drop_duplicates("annotation")[["annotation", "item", "worker", "first"]]
    answers = answers.rename(columns={"annotation": "answer"}).assign(first=lambda f: f["first"].astype(str))
    if level == "set":
        picked = frame[frame["label"].astype(int) == 1][["annotation", "option"]]
    else:
        picked = frame[["annotation", "label"]].rename(columns={"label": "option"})
    chosen = picked.rename(columns={"annotation": "answer"}).assign(option=lambda f: f["option"].astype(str))
    return answers, chosen


class PositionBiasReport(Report):
    kind = "position_bias"
    title = "Position bias (the option shown first)"
    page_label = "Position bias"
    template = "analysis/position_bias.html"
    figures = {"workers": "Share choosing the first-shown option, per worker (SVG)"}
    files = {"workers": "Per worker: share choosing the first-shown option, interval, expectation (CSV)"}
    reads_shown_order: ClassVar[bool] = True
    params = (
        Param("level", float, 0.95, "coverage of the Wilson intervals", minimum=0.5, maximum=0.999,
              label="Interval level", group="Intervals"),
        Param("min_answers", int, 10, "workers with fewer answers are listed but never flagged", minimum=1,
              maximum=100000, label="Answers a worker needs to be flagged", group="Workers"),
    )

    def applies_to(self, task_type: str) -> bool:
        return bool(get_task_type(task_type).shown_order_parts)

    def run(self, data: ReportInput, params: Mapping[str, Any], progress: Progress) -> dict[str, Any]:
        frame = data.frame
        if frame.empty or "first" not in frame:
            return {"empty": True, "n_annotations": 0}
        answers, chosen = answers_and_choices(frame, level=data.level)
        progress(0.3, "shares and intervals")
        result = position_bias(answers, chosen, level=params["level"], min_answers=params["min_answers"])
        workers = [{"worker": name, **_share(share)} for name, share in result.workers.items()]
        workers.sort(key=lambda row: (-(row["share"] or 0) + (row["expected"] or 0), row["worker"]))
        return {
            "first_shown": get_task_type(data.task_type).first_shown,
            "overall": _share(result.overall), "workers": workers,
            "level": result.level, "family_error_percent": round(100 * (1 - result.level), 1),
            "worker_level": result.worker_level, "tested_workers": result.tested_workers,
            "orders_varied": result.orders_varied, "min_answers": params["min_answers"],
            "n_annotations": int(frame["annotation"].nunique()), "n_items": int(frame["item"].nunique()),
            "flagged_workers": sum(1 for row in workers if row["flagged"]),
        }

    def figure(self, name: str, result: Mapping[str, Any]) -> str:
        if name != "workers":
            raise KeyError(name)
        return first_shown_svg(result.get("overall"), result.get("workers") or [])

    def file(self, name: str, result: Mapping[str, Any]) -> tuple[str, list[str], list[dict[str, Any]]]:
        if name != "workers":
            raise KeyError(name)
        return "position-bias-workers.csv", WORKER_COLUMNS, list(result.get("workers") or [])
