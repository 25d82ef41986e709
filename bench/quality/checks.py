"""Benchmark: the CPU a gold question's checks add to a submit, and what the quality read adds
to handing out an item, on projects made for the run and deleted after.

    SQLITE_PATH=/tmp/bench-quality.db .venv/bin/python manage.py migrate && \\
    SQLITE_PATH=/tmp/bench-quality.db .venv/bin/python bench/quality/checks.py [--items 5000] [--workers 40]

Calls the services in-process (``assignment_next``, ``annotation_submit``) and reads the
process's CPU time around each call (``time.process_time``): with SQLite the database's work is
in the process too; with ``DATABASE_URL`` set to PostgreSQL only the Django side is counted.
Prints the median CPU per call of a task answer, a gold answer (scored, counted, judged by one
gold-accuracy rule), and of ``assignment_next`` without any quality setting and with 5 % gold.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

REASON = "A1 gives a concrete example with numbers; A2 only restates it."


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=40)
    parser.add_argument("--per-worker", type=int, default=40)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from annotation.models import CHECK_ITEM_REDUNDANCY, Item, ItemKind, Project, Purpose
    from annotation.services import annotation_submit, assignment_next
    from annotation.task_types import get_task_type
    from quality.models import GoldAnswer, QualityPolicy, QualityRule

    task = get_task_type("pairwise")
    payload = task.clean_item(task.example().records[0]).payload
    answer = {"label": "a1", "standpoint": "none", "reason": REASON}
    users = get_user_model()
    made: list = []

    def project_of(slug: str, gold: int) -> Project:
        project = Project.objects.create(name=slug, slug=slug, task_type="pairwise", redundancy=5,
                                         state=Project.State.ACTIVE, open_to_all=True)
        made.append(project)
        Item.objects.bulk_create([Item(project=project, external_id=f"r{i}", payload=payload, position=i,
                                       redundancy=5) for i in range(args.items)], batch_size=2000)
        if gold:
            golds = Item.objects.bulk_create([
                Item(project=project, external_id=f"g{i}", payload=payload, position=args.items + i,
                     redundancy=CHECK_ITEM_REDUNDANCY, kind=ItemKind.GOLD) for i in range(gold)])
            GoldAnswer.objects.bulk_create([GoldAnswer(item=g, answer={"label": "a1"}, explanation="known")
                                            for g in golds])
            QualityPolicy.objects.create(project=project, gold_rate=0.05)
            QualityRule.objects.create(project=project, kind=QualityRule.Kind.GOLD_ACCURACY, threshold=0.2,
                                       min_answers=3, action=QualityRule.Action.BLOCK)
        return project

    def run(project: Project, prefix: str) -> tuple[list[float], dict[str, list[float]]]:
        nexts: list[float] = []
        submits: dict[str, list[float]] = {Purpose.TASK: [], Purpose.GOLD: []}
        for w in range(args.workers):
            worker = users.objects.create_user(f"{prefix}-{w}")
            made.append(worker)
            for _ in range(args.per_worker):
                started = time.process_time()
                result = assignment_next(project=project, worker=worker)
                nexts.append(time.process_time() - started)
                a = result.assignment
                if a is None:
                    break
                started = time.process_time()
                annotation_submit(assignment=a, worker=worker, data=answer)
                submits[a.purpose].append(time.process_time() - started)
        return nexts, submits

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:.2f} ms (n={len(values)})" if values else "none"

    try:
        plain_next, plain_submit = run(project_of("bench-quality-plain", 0), "bq-plain")
        gold_next, gold_submit = run(project_of("bench-quality-gold", max(args.items // 19, 1)), "bq-gold")
        print(f"{args.items:,} real items, {args.workers} workers x {args.per_worker} items; median CPU per call:")
        print(f"  next, no quality settings:   {ms(plain_next)}")
        print(f"  next, 5 % gold and a rule:   {ms(gold_next)}")
        print(f"  submit, no quality settings: {ms(plain_submit[Purpose.TASK])}")
        print(f"  submit of a real item (gold project): {ms(gold_submit[Purpose.TASK])}")
        print(f"  submit of a gold question (scored, counted, rule judged): {ms(gold_submit[Purpose.GOLD])}")
        extra = statistics.median(gold_submit[Purpose.GOLD]) - statistics.median(gold_submit[Purpose.TASK])
        print(f"  the checks add {extra * 1000:.2f} ms of CPU to a gold question's submit")
    finally:
        # Projects first: their assignments go with them, then the workers.
        for row in sorted(made, key=lambda r: not isinstance(r, Project)):
            row.delete()


if __name__ == "__main__":
    main()
