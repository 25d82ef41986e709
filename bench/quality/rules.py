"""Benchmark: "Check the rules now" on UKPConvArg1 (3,815 workers, 84,445 answers) with 5% gold.

    .venv/bin/python bench/quality/rules.py [--data DIR] [--repeat 5]
    BENCH_DATABASE_URL=postgres://USER@HOST:5432/NAME .venv/bin/python bench/quality/rules.py

Builds the data in a scratch database (a SQLite file, or the PostgreSQL database of
BENCH_DATABASE_URL, which it drops and creates again: give it one of its own): the arguments and
the crowd labels imported as ``reproduce_ukpconvarg`` imports them; 5% of the pairs (seeded)
made gold questions, with a GoldAnswer (the pair's majority label), their answers' assignments
turned into gold ones with a CheckResult each, and every worker's standing counts; 60 workers'
answers marked as sent from an automated browser. One rule of each kind, then the agreement
report (without its agreement bootstrap) and the position-bias report are run, each judged by the
rules as it finishes. Then it times:

- the first check: every rule over every worker, deciding about every worker below a bar (run
  ``--repeat`` times, each rolled back so the next starts from the same state);
- a check with nothing new to decide (the state after the first: what staff see most);
- the MACE competence intervals of the agreement report alone (50 replicates);

and prints wall time (median and range), the CPU time of the benchmark's process (on SQLite
that includes the database's work, on PostgreSQL not) and the decisions made.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
DEFAULT_DATA = Path(os.environ.get("SHARED_DATA_DIR", ROOT.parent / "shared" / "data")) / "ukpconvarg1"
GOLD_SHARE = 0.05
AUTOMATED_WORKERS = 60


def build(data: Path) -> dict:
    import numpy as np
    from django.core.management import call_command
    from django.db.models import Count, Q
    from django.utils import timezone

    from annotation.models import Annotation, Assignment, Item, Project
    from annotation.services.crowd_results import crowd_import
    from quality.models import CheckResult, GoldAnswer, QualityRule, WorkerStanding
    from task_types.pairwise.arguments_file import parse_arguments
    from task_types.pairwise.corpus import arguments_import

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    arguments_import(rows=parse_arguments((data / "arguments.tsv").read_bytes()))
    project = Project.objects.create(slug="ukp-rules", name="UKPConvArg1 crowd labels", task_type="pairwise",
                                     redundancy=5, state=Project.State.CLOSED)
    crowd_import(project=project, data=(data / "assignments.tsv.gz").read_bytes(), filename="assignments.tsv.gz")
    imported = time.perf_counter() - started
    rng = np.random.default_rng(25)
    item_ids = np.array(list(Item.objects.filter(project=project).values_list("pk", flat=True)))
    gold_ids = rng.choice(item_ids, size=round(GOLD_SHARE * len(item_ids)), replace=False).tolist()
    answers = list(Annotation.objects.filter(assignment__item_id__in=gold_ids)
                   .values_list("assignment_id", "assignment__item_id", "assignment__worker_id", "answer__label"))
    votes: dict[int, dict[str, int]] = {}
    for _, item, _, label in answers:
        votes.setdefault(item, {}).setdefault(label, 0)
        votes[item][label] += 1
    expected = {item: max(sorted(counts), key=lambda k: counts[k]) for item, counts in votes.items()}
    now = timezone.now()
    Item.objects.filter(pk__in=gold_ids).update(kind="gold")
    GoldAnswer.objects.bulk_create([GoldAnswer(item_id=item, answer={"label": label}) for item, label in expected.items()],
                                   batch_size=2000)
    Assignment.objects.filter(item_id__in=gold_ids).update(purpose="gold")
    CheckResult.objects.bulk_create([
        CheckResult(assignment_id=assignment, project=project, worker_id=worker, purpose="gold",
                    score=float(label == expected[item]), right=label == expected[item], method="exact",
                    expected={"label": expected[item]}, scored_at=now)
        for assignment, item, worker, label in answers], batch_size=2000)
    counts = (CheckResult.objects.filter(project=project).values("worker_id")
              .annotate(n=Count("pk"), right=Count("pk", filter=Q(right=True))))
    WorkerStanding.objects.bulk_create([
        WorkerStanding(project=project, worker_id=row["worker_id"], gold_answered=row["n"], gold_right=row["right"],
                       changed_at=now) for row in counts], batch_size=2000)
    workers = list(Assignment.objects.filter(project=project).order_by().values_list("worker_id", flat=True).distinct())
    bots = rng.choice(sorted(workers), size=AUTOMATED_WORKERS, replace=False).tolist()
    Annotation.objects.filter(assignment__project=project, assignment__worker_id__in=bots).update(
        client={"signals": {"webdriver": True, "pasted": 0, "hidden_ms": 0, "blurs": 0}})
    for kind, threshold, extra in (("gold_accuracy", 0.6, {"min_answers": 5}), ("competence", 0.3, {"min_answers": 20}),
                                   ("too_fast", 0.3, {"min_answers": 20, "share_of_median": 0.25}),
                                   ("position_bias", 0.1, {"min_answers": 20}), ("automation", 0.0, {"min_answers": 3})):
        QualityRule.objects.create(project=project, kind=kind, threshold=threshold, action="review", **extra)
    return {"project": project.pk, "import_seconds": round(imported, 1), "gold_items": len(gold_ids),
            "gold_answers": len(answers), "workers": len(workers),
            "answers": Annotation.objects.filter(assignment__project=project).count()}


def measure(repeat: int) -> dict:
    from django.db import transaction

    from analysis.models import AnalysisRun
    from analysis.services import analysis_run_create, analysis_run_execute
    from annotation.models import Project
    from quality.models import RuleDecision
    from quality.rules.checks import rules_check

    project = Project.objects.get(slug="ukp-rules")
    runs = {}
    for kind, params in (("agreement", {"n_boot": 0}), ("position_bias", {})):
        run = analysis_run_create(project=project, kind=kind, params=params, enqueue=False)
        started = time.perf_counter()
        done = analysis_run_execute(run_id=run.pk)
        runs[kind] = {"seconds": round(time.perf_counter() - started, 1), "status": done.status if done else None,
                      "decisions": RuleDecision.objects.filter(project=project, trigger__contains=f"run {run.pk} ").count()}
    agreement = AnalysisRun.objects.get(project=project, kind="agreement")
    assert agreement.result and agreement.result["workers"][0].get("competence_high") is not None
    RuleDecision.objects.filter(project=project).delete()
    from quality.models import WorkerStanding
    WorkerStanding.objects.filter(project=project).update(state="active")

    first, first_cpu, decided = [], [], 0
    for _ in range(repeat):
        with transaction.atomic():
            started, cpu = time.perf_counter(), time.process_time()
            check = rules_check(project=project)
            first.append(time.perf_counter() - started)
            first_cpu.append(time.process_time() - cpu)
            decided = len(check.decisions)
            transaction.set_rollback(True)
    rules_check(project=project)
    steady, steady_cpu = [], []
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        again = rules_check(project=project)
        steady.append(time.perf_counter() - started)
        steady_cpu.append(time.process_time() - cpu)
        assert not again.decisions
    ms = lambda values: [round(1000 * v, 1) for v in values]  # noqa: E731
    return {"runs": runs, "first_check_ms": ms(first), "first_check_cpu_ms": ms(first_cpu),
            "first_check_decisions": decided, "found": check.found, "steady_check_ms": ms(steady),
            "steady_check_cpu_ms": ms(steady_cpu)}


def intervals(data: Path) -> dict:
    """The competence intervals alone on the crowd labels: their time, and their median width
    by the worker's number of answers."""
    import pandas as pd

    from analysis.methods.mace import competence_intervals_frame

    frame = pd.read_csv(data / "assignments.tsv.gz", sep="\t", usecols=["pair_id", "worker", "label"])
    frame = frame.rename(columns={"pair_id": "item"})
    started = time.perf_counter()
    found = competence_intervals_frame(frame, replicates=50, seed=0)
    seconds = time.perf_counter() - started
    answers = frame.groupby("worker").size().reindex(found.index)
    width = (found["high"] - found["low"]).groupby(pd.cut(answers, [0, 5, 20, 100, 10**6])).median()
    return {"intervals_seconds": round(seconds, 2),
            "widths": {str(band): round(float(w), 2) for band, w in width.items()}}


def child(args: argparse.Namespace) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.db import connection

    built = build(args.data)
    measured = measure(args.repeat)
    print(json.dumps({"database": connection.vendor, **built, **measured, **intervals(args.data)}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    from ukpconvarg_paths import Database

    with tempfile.TemporaryDirectory(prefix="quality-rules-bench-") as scratch:
        db = Database(Path(scratch))
        db.recreate()
        done = subprocess.run([sys.executable, __file__, "--child", "--data", str(args.data), "--repeat",
                               str(args.repeat)], cwd=ROOT, env=db.env(), capture_output=True, text=True)
        if done.returncode:
            sys.exit(f"the benchmark failed:\n{done.stderr[-4000:]}")
        result = json.loads(done.stdout.strip().splitlines()[-1])
    med = statistics.median
    print(f"database: {db.name}; {result['answers']:,} answers by {result['workers']:,} workers; "
          f"{result['gold_items']:,} gold pairs ({result['gold_answers']:,} gold answers); import {result['import_seconds']} s")
    for kind, run in result["runs"].items():
        print(f"{kind} run: {run['seconds']} s ({run['status']}), judged on finishing: {run['decisions']} decisions")
    first, steady = result["first_check_ms"], result["steady_check_ms"]
    print(f"first check (every rule, every worker): {med(first):.0f} ms ({min(first):.0f}–{max(first):.0f}), "
          f"CPU of this process {med(result['first_check_cpu_ms']):.0f} ms; {result['first_check_decisions']} "
          f"decisions; found per rule id: {result['found']}")
    print(f"check with nothing new to decide: {med(steady):.0f} ms ({min(steady):.0f}–{max(steady):.0f}), "
          f"CPU of this process {med(result['steady_check_cpu_ms']):.0f} ms")
    print(f"MACE competence intervals, 50 replicates over 84,445 labels: {result['intervals_seconds']} s; "
          f"median width by the worker's answers: {result['widths']}")


if __name__ == "__main__":
    main()
