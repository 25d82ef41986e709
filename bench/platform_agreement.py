"""Benchmark: agreement figures of a project of millions of annotations, through the platform.

    .venv/bin/python bench/platform_agreement.py [--annotations 1000000] [--keep]

Fills a scratch database (a temporary SQLite file, or the PostgreSQL database named by
BENCH_DATABASE_URL, which must be empty or hold the project of an earlier run of the same size,
and is left filled) with one pairwise project — items with 5 answers each from crews of 20 workers, three labels — then
times what an agreement run does: loading the long frame from the database (on PostgreSQL the
bulk path of ``analysis.frames``), then every agreement figure (without and with 200 bootstrap
resamples), and MACE's worker competence. Peak memory is the process's maximum resident size
after each phase. The targets printed are for ``--annotations 5000000`` on PostgreSQL. Items are
argument pairs of 32 topics, labelled from hidden convincingness scores, so that ``--gold`` runs
the pairwise gold pipeline (MACE, transitivity filter, PageRank, reason review) on real graphs.
"""

from __future__ import annotations

import argparse
import json
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
    parser.add_argument("--gold", action="store_true",
                        help="then run the pairwise gold pipeline as its job does (MACE by EM with the authors' "
                             "500 iterations × 50 restarts unless --gold-restarts), result stored")
    parser.add_argument("--gold-restarts", type=int, default=50)
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
    if args.gold:
        gold(project, args.gold_restarts)
    if scratch is not None and not args.keep:
        connection.close()
        for path in scratch.parent.glob("bench.sqlite3*"):
            path.unlink()


TOPICS = 32


def _pairs(n_items: int):
    """Items as argument pairs, as in UKPConvArg1: per topic (32 of them), pairs of its arguments,
    each argument with a hidden convincingness; the true label says which of the two is more
    convincing, or equal when they are within 0.3 of each other."""
    import numpy as np

    rng = np.random.default_rng(2)
    per_topic = -(-n_items // TOPICS)
    n_args = 2
    while n_args * (n_args - 1) // 2 < per_topic:
        n_args += 1
    first, second = np.triu_indices(n_args, 1)
    topic = np.arange(n_items) % TOPICS
    slot = np.arange(n_items) // TOPICS
    order = np.stack([rng.permutation(len(first))[:per_topic] for _ in range(TOPICS)])
    pick = order[topic, slot]
    arg1, arg2 = first[pick], second[pick]
    score = rng.normal(size=(TOPICS, n_args))
    gap = score[topic, arg1] - score[topic, arg2]
    truth = np.where(gap > 0.3, 0, np.where(gap < -0.3, 1, 2))
    return topic, arg1, arg2, truth


def _payload(topic: int, arg1: int, arg2: int) -> str:
    return (f'{{"topic": "topic {topic}", "prompt": "p", "stance": "s", '
            f'"arg1": {{"id": "t{topic}a{arg1}", "text": "Argument {arg1} of topic {topic}."}}, '
            f'"arg2": {{"id": "t{topic}a{arg2}", "text": "Argument {arg2} of topic {topic}."}}}}')


def gold(project, restarts: int) -> None:
    """The gold pipeline's job, executed here as a worker executes it: the long frame with the
    reasons, MACE, the transitivity filter and PageRank per topic, the reason review, and the
    result stored on the run."""
    from analysis.models import AnalysisRun, RunPart
    from analysis.services import analysis_run_create, analysis_run_execute
    from jobs.models import JobStatus

    run = analysis_run_create(project=project, kind="pairwise_gold", params={"mace_restarts": restarts},
                              enqueue=False)
    t = time.perf_counter()
    done = analysis_run_execute(run_id=run.pk)
    seconds = time.perf_counter() - t
    stored = AnalysisRun.objects.filter(pk=run.pk).values_list("result", flat=True).get()
    if done.status != JobStatus.DONE:
        raise SystemExit(f"the gold run ended {done.status}: {done.error}")
    counts = stored["counts"]
    pieces = sum(len(json.dumps(rows)) for rows in RunPart.objects.filter(run=run).values_list("rows", flat=True))
    print(f"gold pipeline, MACE EM 500 it. × {restarts} restarts {seconds:7.2f} s   "
          f"process max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
    print(f"  {counts['pairs']:,} pairs: All {counts['all']:,}, Strict {counts['strict']:,}, "
          f"Rank {counts['rank']:,} arguments; result {len(json.dumps(stored)) / 1e6:.1f} MB of JSON, "
          f"pairs and texts apart {pieces / 1e6:.0f} MB in {RunPart.objects.filter(run=run).count()} pieces")


def _crews(n: int):
    """The benchmark's project as arrays: items with 5 answers each from crews of 20 workers, a
    true label per item that 70% of the answers give."""
    import numpy as np

    rng = np.random.default_rng(1)
    ratings, crew, n_items = 5, 20, n // 5
    n_workers = max(crew, (n_items // 100) // crew * crew)
    truth = _pairs(n_items)[3]
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
    topic, arg1, arg2, _ = _pairs(n_items)

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
             blocks(n_items, lambda i: f"{project.pk}\tp{i}\t{_payload(topic[i], arg1[i], arg2[i])}\t{i}\t{ratings}"
                                     f"\t{ratings}\tnow\tnow\n"))
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
    topic, arg1, arg2, truth = _pairs(n_items)
    with transaction.atomic():
        project = Project.objects.create(slug="bench", name="bench", task_type="pairwise", redundancy=ratings)
        Item.objects.bulk_create(
            [Item(project=project, external_id=f"p{i}", payload=json.loads(_payload(topic[i], arg1[i], arg2[i])),
                  position=i, redundancy=ratings, n_active=ratings) for i in range(n_items)], batch_size=5000)
        User.objects.bulk_create([User(username=f"w{w}", password="!") for w in range(n_workers)], batch_size=5000)
    item_ids = list(Item.objects.filter(project=project).order_by("position").values_list("pk", flat=True))
    worker_ids = list(User.objects.filter(username__startswith="w").order_by("pk").values_list("pk", flat=True))
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
