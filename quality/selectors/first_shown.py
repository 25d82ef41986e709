"""How often a worker's counted task answers chose the option shown first, against the share
the drawn orders predict with no position bias (the worker page's figure and its words)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db.models import Count

from annotation.models import Assignment, Project, Purpose
from annotation.task_types import get_task_type
from annotation.worker_figures import FirstShown, interval_of


def worker_first_shown(*, project: Project, worker: User) -> FirstShown | None:
    """How often the worker's counted task answers chose the option shown first, against the
    share the drawn orders predict (``FirstShown``); None for a type with no drawn order. Reads
    the worker's answers and orders only, by the assignments' project and worker index."""
    task = get_task_type(project.task_type)
    if not task.shown_order_parts:
        return None
    part = task.shown_order_parts[0]
    if project.keep_import_order:
        return FirstShown(n=0, hits=0, expected=None, interval=None, first_shown=task.first_shown,
                          why="the project shows options in import order, so every worker saw the same option "
                              "first and position cannot be told from content")
    # Grouped by the database: a worker's answers take few distinct (order, answer) pairs (a pair
    # has 2 orders and a handful of answers), so thousands of rows arrive as a few dozen.
    rows = (Assignment.objects.filter(project=project, worker=worker, status__in=Assignment.COUNTED_STATUSES,
                                      purpose=Purpose.TASK, annotation__isnull=False)
            .order_by().values_list("shown_order", "annotation__answer").annotate(times=Count("pk")))
    n = hits = 0
    chance = 0.0
    for order, answer, times in rows:
        shown = (order or {}).get(part) if isinstance(order, dict) else None
        if not isinstance(shown, list) or len(shown) < 2 or not isinstance(answer, dict):
            continue
        chosen = task.chosen_options(answer, options=shown)
        if not chosen or len(chosen) == len(shown):
            continue
        n += times
        hits += times * (str(shown[0]) in chosen)
        chance += times * len(chosen) / len(shown)
    if not n:
        return FirstShown(n=0, hits=0, expected=None, interval=None, first_shown=task.first_shown,
                          why="no counted answer of theirs was shown in a drawn order and chose a place "
                              "(ties and \"None\" choose none)")
    return FirstShown(n=n, hits=hits, expected=chance / n, interval=interval_of(hits=hits, n=n),
                      first_shown=task.first_shown)
