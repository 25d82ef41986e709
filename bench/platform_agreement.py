"""Benchmark: agreement figures of a project of 1,000,000 annotations, through the platform.

    .venv/bin/python bench/platform_agreement.py [--annotations 1000000] [--keep]

Fills a scratch database (a temporary SQLite file, or the PostgreSQL database named by
BENCH_DATABASE_URL, which must be empty and is left filled unless the run fails) with one
pairwise project — items with 5 answers each from crews of 20 workers, three labels — then
times what an agreement run does: loading the long frame from the database, then every
agreement figure (without and with 200 bootstrap resamples), and MACE's worker competence.
Peak memory is the process's maximum resident size.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotations", type=int, default=1_000_000)
    parser.add_argument("--keep", action="store_true", help="keep the temporary SQLite file")
    args = parser.parse_args()

    scratch = None
    if os.environ.get("BENCH_DATABASE_URL"):
        os.environ["DATABASE_URL"] = os.environ["BENCH_DATABASE_URL"]
    else:
        os.environ.pop("DATABASE_URL", None)
        scratch = Path(tempfile.mkdtemp()) / "bench.sqlite3"
        os.environ["SQLITE_PATH"] = str(scratch)
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    call_command("migrate", verbosity=0)
    print(f"database: {connection.vendor} {connection.settings_dict['NAME']}")
    fill(args.annotations)

    import numpy as np  # noqa: F401  (loaded before timing)

    from analysis.frames import annotation_frame
    from analysis.methods.agreement import agreement_report
    from analysis.methods.mace import mace_frame
    from annotation.models import Project

    project = Project.objects.get(slug="bench")
    t = time.perf_counter()
    loaded = annotation_frame(project=project)
    load_s = time.perf_counter() - t
    labels = loaded.frame[["item", "worker", "label"]]
    t = time.perf_counter()
    report = agreement_report(labels)
    figures_s = time.perf_counter() - t
    t = time.perf_counter()
    agreement_report(labels, n_boot=200, seed=0)
    boot_s = time.perf_counter() - t
    t = time.perf_counter()
    mace_frame(labels, seed=0)
    mace_s = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"annotations: {loaded.annotations:,}")
    print(f"load the long frame from the database      {load_s:7.2f} s")
    print(f"every agreement figure                     {figures_s:7.2f} s   (alpha {report.krippendorff_alpha.value:.4f})")
    print(f"  with 200 bootstrap resamples             {boot_s:7.2f} s")
    print(f"MACE competence (VB, 50 it., 10 restarts)  {mace_s:7.2f} s")
    print(f"load + figures                             {load_s + figures_s:7.2f} s   target under 10 s")
    print(f"process max RSS                            {rss:7.0f} MB  target under 2,048 MB")
    if scratch is not None and not args.keep:
        connection.close()
        for path in scratch.parent.glob("bench.sqlite3*"):
            path.unlink()


def fill(n: int) -> None:
    """Insert the project in bulk, bypassing the services: the benchmark is about reading."""
    from datetime import UTC, datetime, timedelta

    import numpy as np
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from annotation.models import Annotation, Assignment, Item, Project

    User = get_user_model()
    started = time.perf_counter()
    rng = np.random.default_rng(1)
    ratings, crew, n_items = 5, 20, n // 5
    n_workers = max(crew, (n_items // 100) // crew * crew)
    with transaction.atomic():
        project = Project.objects.create(slug="bench", name="bench", task_type="pairwise", redundancy=ratings)
        payload = {"topic": "t", "prompt": "p", "stance": "s", "arg1": {"id": "a", "text": "x"},
                   "arg2": {"id": "b", "text": "y"}}
        Item.objects.bulk_create(
            [Item(project=project, external_id=f"p{i}", payload=payload, position=i, redundancy=ratings,
                  n_active=ratings) for i in range(n_items)], batch_size=5000)
        User.objects.bulk_create([User(username=f"w{w}", password="!") for w in range(n_workers)], batch_size=5000)
    item_ids = list(Item.objects.filter(project=project).order_by("position").values_list("pk", flat=True))
    worker_ids = list(User.objects.filter(username__startswith="w").order_by("pk").values_list("pk", flat=True))
    truth = rng.integers(0, 3, n_items)
    labels = ["a1", "a2", "equal"]
    base = datetime(2026, 1, 1, tzinfo=UTC)
    batch = 20_000
    for start in range(0, n_items, batch // ratings):
        stop = min(n_items, start + batch // ratings)
        with transaction.atomic():
            assignments, answers = [], []
            for i in range(start, stop):
                crew_start = (i % (n_workers // crew)) * crew
                members = rng.choice(crew, ratings, replace=False) + crew_start
                for w in members:
                    label = truth[i] if rng.random() < 0.7 else rng.integers(0, 3)
                    when = base + timedelta(seconds=i)
                    assignments.append(Assignment(item_id=item_ids[i], project=project, worker_id=worker_ids[w],
                                                  status="submitted", assigned_at=when,
                                                  expires_at=when + timedelta(minutes=30), submitted_at=when))
                    answers.append(labels[label])
            Assignment.objects.bulk_create(assignments, batch_size=5000)
            Annotation.objects.bulk_create(
                [Annotation(assignment=a, answer={"label": lab, "standpoint": "none"}, reason="r", seconds=10.0)
                 for a, lab in zip(assignments, answers, strict=True)], batch_size=5000)
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    print(f"filled {n:,} annotations on {n_items:,} items by {n_workers:,} workers in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
