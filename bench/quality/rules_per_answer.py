"""Benchmark: the CPU the per-answer quality rules add to a submit (too fast, position bias,
automated browser, and the competence rule's count), judged after the submit's commit.

    SQLITE_PATH=/tmp/bench-rules.db .venv/bin/python manage.py migrate && \\
    SQLITE_PATH=/tmp/bench-rules.db .venv/bin/python bench/quality/rules_per_answer.py [--workers 30]

Calls the services in-process (``assignment_next``, ``annotation_submit``; autocommit, so the
rules' ``on_commit`` callback runs inside the timed call) and reads the process's CPU time
around each submit (``time.process_time``): with SQLite the database's work is in the process
too; with ``DATABASE_URL`` set to PostgreSQL only the Django side is counted. Three projects
of the same items, their submits taken in turn: the submit as it was before answers were judged
on arrival (the callback switched off), with the callback and no rule, and with one rule of each
per-answer kind. Prints the median CPU per submit of each and the differences. ``--orm`` moves
the rules' states through the ORM (``quality.services.rules.states.rule_states_add_orm``) instead
of the hand-written statements.
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
    parser.add_argument("--items", type=int, default=3000)
    parser.add_argument("--workers", type=int, default=30)
    parser.add_argument("--per-worker", type=int, default=40)
    parser.add_argument("--orm", action="store_true", help="the rules' states through the ORM")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model

    from annotation.models import Item, Project
    from annotation.services import annotation_submit, assignment_next, submission
    from annotation.task_types import get_task_type
    from quality.models import QualityRule
    from quality.services.rules import judging
    from quality.services.rules.states import rule_states_add_orm

    task = get_task_type("pairwise")
    payload = task.clean_item(task.example().records[0]).payload
    answer = {"label": "a1", "standpoint": "none", "reason": REASON}
    users = get_user_model()
    made: list = []
    judge = submission.answer_rules_after_commit
    if args.orm:
        judging.rule_states_add = rule_states_add_orm

    def project_of(slug: str, rules: bool) -> Project:
        project = Project.objects.create(name=slug, slug=slug, task_type="pairwise", redundancy=5,
                                         state=Project.State.ACTIVE, open_to_all=True)
        made.append(project)
        Item.objects.bulk_create([Item(project=project, external_id=f"r{i}", payload=payload, position=i,
                                       redundancy=5) for i in range(args.items)], batch_size=2000)
        if rules:
            Kind = QualityRule.Kind
            for kind, threshold, least in ((Kind.TOO_FAST, 0.1, 5), (Kind.POSITION_BIAS, 0.2, 10),
                                           (Kind.AUTOMATION, 0.0, 3), (Kind.COMPETENCE, 0.5, 20)):
                # A bar nobody in the run reaches: the cost measured is judging, not deciding.
                QualityRule.objects.create(project=project, kind=kind, threshold=threshold, min_answers=least * 1000,
                                           action=QualityRule.Action.REVIEW)
        return project

    def run(projects: list[Project], judged: list[bool]) -> list[list[float]]:
        """The projects' submits taken in turn, one of each after another, so that what drifts
        over a run (the tables' size, the machine's load) weighs on each alike."""
        submits: list[list[float]] = [[] for _ in projects]
        for w in range(args.workers):
            workers = [users.objects.create_user(f"br-{n}-{w}") for n in range(len(projects))]
            made.extend(workers)
            for _ in range(args.per_worker):
                for n, (project, worker) in enumerate(zip(projects, workers, strict=True)):
                    a = assignment_next(project=project, worker=worker).assignment
                    if a is None:
                        continue
                    submission.answer_rules_after_commit = judge if judged[n] else (lambda **_: None)
                    started = time.process_time()
                    annotation_submit(assignment=a, worker=worker, data=answer, client={"elapsed_ms": 9000})
                    submits[n].append(time.process_time() - started)
        submission.answer_rules_after_commit = judge
        return submits

    def ms(values: list[float]) -> str:
        return f"{statistics.median(values) * 1000:.3f} ms (n={len(values)})"

    try:
        before, no_rules, four = run([project_of("bench-rules-before", False), project_of("bench-rules-none", False),
                                      project_of("bench-rules-four", True)], [False, True, True])
        print(f"{args.items:,} items, {args.workers} workers x {args.per_worker} answers, states through "
              f"{'the ORM' if args.orm else 'SQL'}; median CPU per submit:")
        print(f"  before (no judging on arrival):      {ms(before)}")
        print(f"  judged on arrival, no rule:          {ms(no_rules)}")
        print(f"  judged on arrival, 4 per-answer rules: {ms(four)}")
        base = statistics.median(before)
        print(f"  added: {1000 * (statistics.median(no_rules) - base):.3f} ms without rules, "
              f"{1000 * (statistics.median(four) - base):.3f} ms with four rules")
    finally:
        for row in sorted(made, key=lambda r: not isinstance(r, Project)):
            row.delete()


if __name__ == "__main__":
    main()
