"""Key-point set comparisons built from several systems' track 2 output: for each topic and
stance of the arguments, one item showing every system's key points with their prevalence, the
sets in an order drawn with the seed. Imported all or nothing; items already in the project are
kept."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from analysis.methods.keypoint_track2 import LIFT, Track2Error, check_key_points, prevalence
from task_types.key_point_sets.limits import MAX_SETS, SLUG
from task_types.key_points.system_files import SystemOutput

if TYPE_CHECKING:
    from annotation.models import Project


@dataclass(frozen=True)
class SetsBuilt:
    records: int
    created: int
    existing: int


def comparison_records(arguments: pd.DataFrame, systems: Sequence[SystemOutput], *, seed: int = 0,
                       min_score: float = 0.0, counts: str = "topic", lift: str = LIFT) -> list[dict[str, Any]]:
    """One import record per topic and stance of ``arguments``: every system's key points of that
    topic and stance with their prevalence (see ``keypoint_track2.prevalence``). ``counts`` and
    ``lift``: the key-point count check (``keypoint_track2.check_key_points``)."""
    if not 2 <= len(systems) <= MAX_SETS:
        raise Track2Error(f"compare 2 to {MAX_SETS} systems, got {len(systems)}")
    names = [s.name for s in systems]
    if len(set(names)) != len(names):
        raise Track2Error("each system needs a name of its own")
    tables = {}
    for system in systems:
        try:
            check_key_points(system.key_points, arguments, counts=counts, lift=lift)
            tables[system.name] = prevalence(arguments, system.key_points, system.predictions, min_score=min_score,
                                             seed=seed)
        except Track2Error as exc:
            raise Track2Error(f"system {system.name!r}: {exc}") from None
    rng = np.random.default_rng(seed)
    groups = sorted({(str(t), int(s)) for t, s in zip(arguments["topic"], arguments["stance"], strict=True)})
    records = []
    for topic, stance in groups:
        sets = []
        for name in names:
            table = tables[name]
            rows = table[(table["topic"] == topic) & (table["stance"] == stance)]
            if rows.empty:
                raise Track2Error(f"system {name!r}: no key points for topic {topic!r}, stance {stance}: a "
                                  "comparison shows every system's key points of a side, so each system needs "
                                  "at least one there")
            # Most prevalent first, as a system reports its summary.
            rows = rows.sort_values("matched", ascending=False, kind="stable")
            sets.append({"system": name, "key_points": [
                {"text": t, "share": round(float(sh), 4), "matched": int(m)}
                for t, sh, m in zip(rows["key_point"], rows["share"], rows["matched"], strict=True)]})
        order = rng.permutation(len(sets))
        records.append({"topic": topic, "stance": stance,
                        "arguments": int(rows["arguments"].iloc[0]), "sets": [sets[i] for i in order]})
    return records


def sets_files_read(*, files: Mapping[str, IO[bytes]], options: Mapping[str, Any]) -> tuple[list[Any], str]:
    """What the import job of several systems' track 2 output reads (``FilesImport.read``):
    ``arguments``, then ``key_points_N`` and ``predictions_N`` of each system N named in
    ``options["systems"]`` ({N: name}), with ``seed``, ``min_score``, ``counts`` and ``lift``; the
    comparisons as checked items."""
    from annotation.importers import ImportFailed, RowError, clean_records
    from annotation.task_types import get_task_type
    from task_types.key_points.system_files import ARGUMENT_COLUMNS, read_system, read_table

    try:
        arguments = read_table(files["arguments"], ARGUMENT_COLUMNS, name="arguments.csv")
        systems = [read_system(name, files[f"key_points_{n}"].read(), files[f"predictions_{n}"].read())
                   for n, name in sorted(dict(options.get("systems") or {}).items())]
        records = comparison_records(arguments, systems, seed=int(options.get("seed") or 0),
                                     min_score=float(options.get("min_score") or 0.0),
                                     counts=options.get("counts") or "topic", lift=options.get("lift") or LIFT)
    except Track2Error as exc:
        raise ImportFailed([RowError(None, None, str(exc))]) from None
    task = get_task_type(SLUG)
    return clean_records(enumerate(records, 1), task_type=task, unit="comparison"), "comparison"


def key_point_sets_build(*, project: Project, arguments: pd.DataFrame, systems: Sequence[SystemOutput],
                         seed: int = 0, min_score: float = 0.0, counts: str = "topic",
                         lift: str = LIFT) -> SetsBuilt:
    """Add the comparisons of ``systems`` the project lacks. Raises ImportFailed naming the
    problem (and, for the key-point count check, ``lift``, the setting that lifts it); nothing is
    written then."""
    from annotation.importers import ImportFailed, ParsedItem, RowError
    from annotation.services import items_import
    from annotation.task_types import get_task_type

    task = get_task_type(project.task_type)
    if task.slug != SLUG:
        raise ImportFailed([RowError(None, "project", f"is a {task.name} project, not key-point set ranking")])
    try:
        records = comparison_records(arguments, systems, seed=seed, min_score=min_score, counts=counts, lift=lift)
    except Track2Error as exc:
        raise ImportFailed([RowError(None, None, str(exc))]) from None
    existing = set(project.items.values_list("external_id", flat=True))
    parsed = [ParsedItem(number, task.clean_item(r)) for number, r in enumerate(records, 1)]
    fresh = [p for p in parsed if p.item.external_id not in existing]
    result = items_import(project=project, parsed=fresh) if fresh else None
    return SetsBuilt(records=len(records), created=result.created if result else 0, existing=len(parsed) - len(fresh))
