"""Benchmark: agreement figures of a project of millions of annotations, through the platform.

    .venv/bin/python bench/platform_agreement.py [--annotations 1000000] [--keep]

Fills a scratch database (a temporary SQLite file, or the PostgreSQL database named by
BENCH_DATABASE_URL, which must be empty or hold the project of an earlier run of the same size,
and is left filled) with one pairwise project — items with 5 answers each from crews of 20 workers, three labels — then
times what an agreement run does: loading the long frame from the database (on PostgreSQL the
bulk path of ``analysis.frames``), then every agreement figure (without and with 200 bootstrap
resamples), and MACE's worker competence. Peak memory is the process's maximum resident size
after each phase. The targets printed are for ``--annotations 5000000`` on PostgreSQL.
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
    from annotation.models import Annotation

    have = Annotation.objects.filter(assignment__project__slug="bench").count()
    if have and have != args.annotations:
        raise SystemExit(f"the database holds a bench project of {have:,} annotations; use an empty one")
    if not have:
        (fill_copy if connection.vendor == "postgresql" else fill)(args.annotations)
    else:
        print(f"reusing the bench project of {have:,} annotations")

    import numpy as np  # noqa: F401  (loaded before timing)

    from analysis.frames import annotation_frame
    from analysis.methods.agreement import agreement_report
    from analysis.methods.mace import mace_frame
    from annotation.models import Project

    project = Project.objects.get(slug="bench")

    def peak() -> float:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    t = time.perf_counter()
    loaded = annotation_frame(project=project, reasons=False)
    load_s, load_peak = time.perf_counter() - t, peak()
    labels = loaded.frame[["item", "worker", "label"]]
    t = time.perf_counter()
    report = agreement_report(labels)
    figures_s, figures_peak = time.perf_counter() - t, peak()
    t = time.perf_counter()
    agreement_report(labels, n_boot=200, seed=0)
    boot_s = time.perf_counter() - t
    t = time.perf_counter()
    mace_frame(labels, seed=0)
    mace_s = time.perf_counter() - t
    print(f"annotations: {loaded.annotations:,}")
    print(f"load the long frame from the database      {load_s:7.2f} s   peak {load_peak:6.0f} MB")
    print(f"every agreement figure                     {figures_s:7.2f} s   peak {figures_peak:6.0f} MB"
          f"   (alpha {report.krippendorff_alpha.value:.4f})")
    print(f"  with 200 bootstrap resamples             {boot_s:7.2f} s")
    print(f"MACE competence (VB, 50 it., 10 restarts)  {mace_s:7.2f} s   target under 15 s")
    print(f"load + figures                             {load_s + figures_s:7.2f} s   target under 10 s, "
          f"under 1,536 MB (peak {figures_peak:.0f} MB)")
    print(f"process max RSS, all phases                {peak():7.0f} MB")
    if scratch is not None and not args.keep:
        connection.close()
        for path in scratch.parent.glob("bench.sqlite3*"):
            path.unlink()


def _crews(n: int):
    """The benchmark's project as arrays: items with 5 answers each from crews of 20 workers, a
    true label per item that 70% of the answers give."""
    import numpy as np

    rng = np.random.default_rng(1)
    ratings, crew, n_items = 5, 20, n // 5
    n_workers = max(crew, (n_items // 100) // crew * crew)
    truth = rng.integers(0, 3, n_items)
    crew_start = (np.arange(n_items) % (n_workers // crew)) * crew
    members = np.argsort(rng.random((n_items, crew)), axis=1)[:, :ratings] + crew_start[:, None]
    noisy = rng.random((n_items, ratings)) >= 0.7
    labels = np.where(noisy, rng.integers(0, 3, (n_items, ratings)), truth[:, None])
    return n_items, n_workers, ratings, members.ravel(), labels.ravel()


def fill_copy(n: int) -> None:
    """PostgreSQL: write the project with COPY, bypassing the services (the benchmark is about
    reading): a few million rows take a minute instead of an hour of INSERTs."""
    import numpy as np
    from django.db import connection, transaction

    from annotation.models import Annotation, Assignment, Item, Project

    started = time.perf_counter()
    n_items, n_workers, ratings, members, labels = _crews(n)
    names = np.array(['{"label": "a1", "standpoint": "none"}', '{"label": "a2", "standpoint": "none"}',
                      '{"label": "equal", "standpoint": "none"}'])
    payload = ('{"topic": "t", "prompt": "p", "stance": "s", "arg1": {"id": "a", "text": "x"}, '
               '"arg2": {"id": "b", "text": "y"}}')

    def copy(cursor, table: str, columns: str, lines) -> None:
        with cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as out:
            for block in lines:
                out.write(block)

    def blocks(rows: int, line, size: int = 200_000):
        for start in range(0, rows, size):
            yield "".join(line(i) for i in range(start, min(rows, start + size)))

    with transaction.atomic():
        project = Project.objects.create(slug="bench", name="bench", task_type="pairwise", redundancy=ratings)
        connection.ensure_connection()
        cursor = connection.connection.cursor()
        copy(cursor, Item._meta.db_table,
             "project_id, external_id, payload, position, redundancy, n_active, created_at, updated_at",
             blocks(n_items, lambda i: f"{project.pk}\tp{i}\t{payload}\t{i}\t{ratings}\t{ratings}\tnow\tnow\n"))
        copy(cursor, "auth_user", "username, password, is_superuser, is_staff, is_active, first_name, last_name, "
             "email, date_joined", blocks(n_workers, lambda w: f"w{w}\t!\tf\tf\tt\t\t\t\tnow\n"))
        cursor.execute("SELECT id FROM annotation_item WHERE project_id = %s ORDER BY position", [project.pk])
        item_ids = np.array([r[0] for r in cursor.fetchall()])
        cursor.execute("SELECT id FROM auth_user WHERE username LIKE 'w%%' ORDER BY id")
        worker_ids = np.array([r[0] for r in cursor.fetchall()])
        cursor.execute("SELECT COALESCE(MAX(id), 0) FROM annotation_assignment")
        first = cursor.fetchone()[0] + 1
        rows = n_items * ratings
        items_of_row = item_ids[np.arange(rows) // ratings]
        workers_of_row = worker_ids[members]
        # Answers arrive one item after another, a second apart.
        base = np.datetime64("2026-01-01T00:00:00")
        when = base + (np.arange(rows) // ratings).astype("timedelta64[s]")
        expires = (when + np.timedelta64(30, "m")).astype(str)
        when = when.astype(str)
        copy(cursor, Assignment._meta.db_table,
             "id, item_id, project_id, worker_id, status, assigned_at, expires_at, submitted_at, review_note",
             blocks(rows, lambda r: f"{first + r}\t{items_of_row[r]}\t{project.pk}\t{workers_of_row[r]}\tsubmitted"
                                    f"\t{when[r]}+00\t{expires[r]}+00\t{when[r]}+00\t\n"))
        copy(cursor, Annotation._meta.db_table, "assignment_id, answer, reason, seconds, client, created_at, version",
             blocks(rows, lambda r: f"{first + r}\t{names[labels[r]]}\tr\t10\t{{}}\t{when[r]}+00\t1\n"))
        cursor.execute("SELECT setval(pg_get_serial_sequence('annotation_assignment', 'id'), %s)", [first + rows])
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    print(f"filled {n:,} annotations on {n_items:,} items by {n_workers:,} workers in {time.perf_counter() - started:.0f} s")


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
