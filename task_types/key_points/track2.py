"""Track 2, the matching half: a system's generated key points turned into key-point matching
items, and the system scored on the labels people give them.

The pairs to label are chosen by ``analysis.methods.keypoint_track2`` (each argument with its
best key point, the top half per topic and stance, a seeded sample). Each sampled argument
becomes an item of a key-point matching project, built by the matching type's own record builder
(``KeyPointCorpus.records``): with ``show="all"`` it lists every key point of the system for the
argument's topic and stance, with ``show="predicted"`` only the best-scoring one (and any tied
with it, so that the pair the evaluation picks is always labelled). Once annotated, the labels
come from the project's thresholds (60% / 15% by default) and the system is scored exactly as in
track 1, over all the arguments: a kept pair without a label (not sampled, or ambiguous) counts
0 for strict and 1 for relaxed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import pandas as pd

from analysis.methods.keypoint_track2 import (
    LIFT,
    Track2Error,
    best_pairs,
    check_key_points,
    sample_pairs,
)
from task_types.key_points.corpus import KeyPointCorpus
from task_types.key_points.system_files import SystemOutput

if TYPE_CHECKING:
    from annotation.models import Project

SHOW = ("all", "predicted")
# The key-point count check (analysis.methods.keypoint_track2.COUNTS) as the admin pages offer it,
# and how a refusal there names the setting that lifts it.
COUNT_CHOICES = [
    ("topic", "5 to 10 per topic, both stances together (the shared task's rule)"),
    ("stance", "5 to 10 per topic and per stance"),
    ("any", "Any number (no check)"),
]
ADMIN_LIFT = "The setting 'Key-point counts: Any number (no check)'"


@dataclass(frozen=True)
class Track2Selection:
    records: list[dict[str, Any]]
    pairs: int  # arguments with a valid prediction
    kept: int  # the top half per topic and stance
    ignored: int  # predicted ids not in the system's key points of that topic and stance
    without_prediction: int


def selection_records(arguments: pd.DataFrame, system: SystemOutput, *, sample: int | None, seed: int = 0,
                      show: str = "all", counts: str = "topic", lift: str = LIFT) -> Track2Selection:
    """The matching items' import records for a seeded sample of the system's top pairs; the
    system's key points are first checked (``counts``, ``lift``: see ``check_key_points``)."""
    if show not in SHOW:
        raise Track2Error(f"show must be one of {', '.join(SHOW)}, got {show!r}")
    check_key_points(system.key_points, arguments, counts=counts, lift=lift)
    top = best_pairs(arguments, system.key_points, system.predictions, seed=seed)
    chosen = sample_pairs(top.kept, size=sample, seed=seed)
    wanted = set(chosen["arg_id"])
    args = [{"arg_id": str(a), "argument": str(t), "topic": str(tp), "stance": int(s)}
            for a, t, tp, s in arguments[["arg_id", "argument", "topic", "stance"]].itertuples(index=False)
            if str(a) in wanted]
    kps = [{"key_point_id": str(k), "key_point": str(t), "topic": str(tp), "stance": int(s)}
           for k, t, tp, s in system.key_points[["key_point_id", "key_point", "topic", "stance"]].itertuples(index=False)]
    records = KeyPointCorpus(arguments=args, key_points=kps, labels={}).records()
    if show == "predicted":
        for record in records:
            scores = system.predictions.get(record["id"], {})
            best = max(scores.get(kp["id"], float("-inf")) for kp in record["key_points"])
            record["key_points"] = [kp for kp in record["key_points"] if scores.get(kp["id"]) == best]
    return Track2Selection(records=records, pairs=len(top.pairs), kept=len(top.kept), ignored=top.ignored,
                           without_prediction=top.without_prediction)


@dataclass(frozen=True)
class Track2Built:
    selection: Track2Selection
    created: int
    existing: int


def track2_build(*, project: Project, arguments: pd.DataFrame, system: SystemOutput, sample: int | None,
                 seed: int = 0, show: str = "all", counts: str = "topic", lift: str = LIFT) -> Track2Built:
    """Add the sampled arguments the project lacks as matching items; all or nothing. Raises
    ImportFailed naming the problem (a topic without 5 to 10 key points, and ``lift``, the setting
    that lifts that check …)."""
    from annotation.importers import ImportFailed, ParsedItem, RowError
    from annotation.services import items_import
    from annotation.task_types import get_task_type
    from task_types.key_points.services import key_points_project

    key_points_project(project=project)
    try:
        selection = selection_records(arguments, system, sample=sample, seed=seed, show=show, counts=counts,
                                      lift=lift)
    except Track2Error as exc:
        raise ImportFailed([RowError(None, None, f"system {system.name!r}: {exc}")]) from None
    task = get_task_type(project.task_type)
    existing = set(project.items.values_list("external_id", flat=True))
    parsed = [ParsedItem(n, task.clean_item(r)) for n, r in enumerate(selection.records, 1)]
    fresh = [p for p in parsed if p.item.external_id not in existing]
    result = items_import(project=project, parsed=fresh) if fresh else None
    return Track2Built(selection=selection, created=result.created if result else 0, existing=len(parsed) - len(fresh))


def track2_files_read(*, files: Mapping[str, IO[bytes]], options: Mapping[str, Any]) -> tuple[list[Any], str]:
    """What the import job of a system's track 2 output reads (``FilesImport.read``): its
    arguments, key points and predictions, and the options of the build (``system``, ``sample``,
    ``seed``, ``show``, ``counts``, ``lift``); the sampled pairs as checked matching items."""
    from annotation.importers import ImportFailed, RowError, clean_records
    from annotation.task_types import get_task_type
    from task_types.key_points.system_files import ARGUMENT_COLUMNS, read_system, read_table

    name = str(options.get("system") or "system")
    try:
        arguments = read_table(files["arguments"], ARGUMENT_COLUMNS, name="arguments.csv")
        system = read_system(name, files["key_points"].read(), files["predictions"].read())
        selection = selection_records(arguments, system, sample=options.get("sample"), seed=int(options.get("seed") or 0),
                                      show=options.get("show") or "all", counts=options.get("counts") or "topic",
                                      lift=options.get("lift") or LIFT)
    except Track2Error as exc:
        raise ImportFailed([RowError(None, None, f"system {name!r}: {exc}")]) from None
    task = get_task_type("key_points")
    return clean_records(enumerate(selection.records, 1), task_type=task, unit="pair"), "pair"


def track2_score(*, project: Project, arguments: pd.DataFrame, system: SystemOutput,
                 ties: str = "official") -> dict[str, Any]:
    """The system's track 1 figures (strict, relaxed, mean mAP, per group; tied scores settled by
    ``ties``) on the labels of the project (derived from its annotations with its thresholds, or
    its imported gold), with how many of the kept pairs have a label. Raises Track2Error when the
    project has no labels."""
    from analysis.methods.keypoint_eval import evaluate
    from task_types.key_points.selectors import evaluation_data

    labels = evaluation_data(project=project).labels
    if labels.empty:
        raise Track2Error("the project has no labels yet: collect annotations first")
    result = evaluate(arguments=arguments[["arg_id", "argument", "topic", "stance"]], key_points=system.key_points,
                      labels=labels, predictions=system.predictions, ties=ties).to_dict()
    # The pairs the evaluation keeps are each argument's best key point, one of the tied ones on
    # a tie; with every tied key point shown, each has a label once annotated.
    kept = best_pairs(arguments, system.key_points, system.predictions).kept
    labelled = set(zip(labels["arg_id"].astype(str), labels["key_point_id"].astype(str), strict=True))
    result["kept_pairs"] = len(kept)
    result["kept_pairs_labelled"] = sum((a, k) in labelled for a, k in zip(kept["arg_id"], kept["key_point_id"],
                                                                           strict=True))
    result["labelled_pairs"] = len(labels)
    result["system"] = system.name
    return result
