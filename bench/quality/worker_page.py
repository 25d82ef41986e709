"""Benchmark: server time of the worker page (``/projects/<slug>/workers/<id>/``) and its API on
UKPConvArg1's crowd data (3,815 workers, 16,927 pairs, 84,445 answers), for the worker with the
most answers, with 5% of the items made gold questions and a finished agreement run. The page
loads its comparison with the other workers (agreement with their majority, reasons they also
gave) in a second request once it is shown: both are measured, and the page with everything at
once (its link without JavaScript), the position-bias figure the page shows (an image of its
own) and the API, which answers with everything.

    .venv/bin/python bench/quality/worker_page.py [--repeat 9] [--data ../shared/data/ukpconvarg1]
    SQLITE_PATH=/tmp/ukp.sqlite3 .venv/bin/python bench/quality/worker_page.py --keep
    DATABASE_URL=postgres://…/scratch .venv/bin/python bench/quality/worker_page.py

Without ``SQLITE_PATH`` or ``DATABASE_URL`` the database is a scratch SQLite file, deleted at the
end. A database that already holds the project (``--project``) is used as it is (``--keep``
leaves a scratch file for the next run); otherwise the arguments and the labels are imported as
``reproduce_ukpconvarg`` imports them, every 20th item becomes a gold question (its answers
become gold answers, scored against the item's first answer, with the workers' running counts),
a share of the answers get authenticity signals, every answer gets an order of its two
arguments drawn as the engine draws it (so the page's answers as seen and its position-bias
figure have orders to read; the crowd gave its labels in import order, so only the time of the
page is measured here, not what it says), and the agreement report is run once.

Requests go through Django's test client as an admin (middleware, sessions, permissions,
queries, templates). Prints the median and fastest of ``--repeat`` requests per page, the median
and least CPU time of the process per request (the database's work included, as SQLite runs in
the process: the figure a busy machine inflates least, the least of all on a machine others
share), the number of queries of one request, the
size of the response, and the machine's load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "ukpconvarg1"
GOLD_EVERY = 20  # 5% of the items


def _load(*, slug: str, data: Path) -> None:
    from django.db import transaction
    from django.db.models import Count, Q
    from django.utils import timezone

    from analysis.services import analysis_run_create, analysis_run_execute
    from annotation.models import Annotation, Assignment, Item, ItemKind, Project, Purpose
    from annotation.services.crowd_results import crowd_import
    from annotation.task_types.shown_order import assignment_seed, draw_order
    from quality.models import CheckResult, WorkerStanding
    from task_types.pairwise.arguments_file import parse_arguments
    from task_types.pairwise.corpus import arguments_import

    started = time.perf_counter()
    arguments_import(rows=parse_arguments((data / "arguments.tsv").read_bytes()))
    project = Project.objects.create(slug=slug, name="UKPConvArg1 crowd labels", task_type="pairwise",
                                     redundancy=5, state=Project.State.CLOSED)
    result = crowd_import(project=project, data=(data / "assignments.tsv.gz").read_bytes(),
                          filename="assignments.tsv.gz")
    print(f"imported {result.annotations:,} answers in {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    with transaction.atomic():
        gold_ids = list(Item.objects.filter(project=project).order_by("pk").values_list("pk", flat=True)[::GOLD_EVERY])
        Item.objects.filter(pk__in=gold_ids).update(kind=ItemKind.GOLD)
        Assignment.objects.filter(item_id__in=gold_ids).update(purpose=Purpose.GOLD)
        now = timezone.now()
        expected: dict[int, dict] = {}
        checks = []
        rows = (Annotation.objects.filter(assignment__item_id__in=gold_ids).order_by("pk")
                .values_list("assignment_id", "assignment__item_id", "assignment__worker_id", "answer"))
        for assignment_id, item_id, worker_id, answer in rows:
            known = expected.setdefault(item_id, {"label": answer.get("label")})
            right = answer.get("label") == known["label"]
            checks.append(CheckResult(assignment_id=assignment_id, project=project, worker_id=worker_id,
                                      purpose=Purpose.GOLD, score=float(right), right=right, method="exact",
                                      expected=known, scored_at=now))
        CheckResult.objects.bulk_create(checks, batch_size=2000)
        counts = (CheckResult.objects.filter(project=project).values("worker_id")
                  .annotate(n=Count("pk"), right=Count("pk", filter=Q(right=True))))
        WorkerStanding.objects.bulk_create([
            WorkerStanding(project=project, worker_id=c["worker_id"], gold_answered=c["n"], gold_right=c["right"],
                           changed_at=now) for c in counts], batch_size=2000)
        # Signals on every 7th answer, as the page would send them.
        signed = list(Annotation.objects.filter(assignment__project=project).order_by("pk")[::7])
        for n, annotation in enumerate(signed):
            annotation.client = {**annotation.client, "signals": {"pasted": (n % 5) * 12, "hidden_ms": (n % 3) * 900,
                                                                  "blurs": n % 4, "webdriver": n % 50 == 0}}
        Annotation.objects.bulk_update(signed, ["client"], batch_size=2000)
        drawn = list(Assignment.objects.filter(project=project).only("pk", "item_id", "worker_id"))
        for assignment in drawn:
            assignment.shown_order = draw_order({"sides": ["a1", "a2"]}, seed=assignment_seed(
                item_id=assignment.item_id, worker_id=assignment.worker_id))
        Assignment.objects.bulk_update(drawn, ["shown_order"], batch_size=2000)
    print(f"{len(gold_ids):,} gold items, {len(checks):,} gold answers, signals on {len(signed):,} answers, "
          f"orders drawn for {len(drawn):,} "
          f"in {time.perf_counter() - started:.1f} s")
    started = time.perf_counter()
    run = analysis_run_create(project=project, kind="agreement", enqueue=False)
    analysis_run_execute(run_id=run.pk)
    run.refresh_from_db()
    print(f"agreement run {run.status} in {time.perf_counter() - started:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default="ukpconvarg1-worker-page")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--keep", action="store_true", help="keep a scratch SQLite database")
    args = parser.parse_args()
    scratch = None
    if not os.environ.get("DATABASE_URL") and not os.environ.get("SQLITE_PATH"):
        scratch = Path(tempfile.mkdtemp(prefix="worker-page-")) / "db.sqlite3"
        os.environ["SQLITE_PATH"] = str(scratch)
    os.environ.setdefault("DJANGO_DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.db.models import Count
    from django.test import Client

    from annotation.models import Annotation, Project
    from annotation.services.accounts import user_create

    call_command("migrate", verbosity=0)
    settings.ALLOWED_HOSTS = ["*"]
    if not Project.objects.filter(slug=args.project).exists():
        if not args.data.is_dir():
            sys.exit(f"no UKPConvArg1 data at {args.data} (see ../shared/data/README.md)")
        _load(slug=args.project, data=args.data)
    project = Project.objects.get(slug=args.project)
    top = (Annotation.objects.filter(assignment__project=project).values("assignment__worker_id")
           .annotate(n=Count("pk")).order_by("-n").first())
    worker = get_user_model().objects.get(pk=top["assignment__worker_id"])
    admin = get_user_model().objects.filter(username="bench-admin").first() or user_create(
        username="bench-admin", role="admin")
    print(f"{connection.vendor}: {Annotation.objects.filter(assignment__project=project).count():,} answers; "
          f"worker {worker.username} has the most: {top['n']:,}")
    client = Client()
    client.force_login(admin)
    page = f"/projects/{project.slug}/workers/{worker.pk}/"
    pages = [
        ("worker page", page, {}),
        ("its comparison with the others", f"{page}?part=crowd", {"HTTP_HX_REQUEST": "true"}),
        ("worker page, last answers page", f"{page}?page=last", {}),
        ("worker page with the comparison", f"{page}?part=crowd", {}),
        ("its position-bias figure (SVG)", f"{page}first-shown.svg", {}),
        ("worker API (JSON, everything)", f"/api/projects/{project.slug}/workers/{worker.pk}/", {}),
    ]
    slowest = 0.0
    queries = [0]

    def count(execute, sql, params, many, context):
        queries[0] += 1
        return execute(sql, params, many, context)

    for name, url, headers in pages:
        queries[0] = 0
        with connection.execute_wrapper(count):
            response = client.get(url, **headers)
        n_queries = queries[0]
        assert response.status_code == 200, (url, response.status_code)
        times, cpu = [], []
        for _ in range(args.repeat):
            started, started_cpu = time.perf_counter(), time.process_time()
            response = client.get(url, **headers)
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        slowest = max(slowest, statistics.median(times))
        print(f"{name:33} median {1000 * statistics.median(times):6.0f} ms  fastest {1000 * min(times):6.0f} ms"
              f"  CPU median {1000 * statistics.median(cpu):5.0f} ms  fastest {1000 * min(cpu):5.0f} ms"
              f"  {n_queries} queries"
              f"  {len(response.content):>8,} bytes")
    print(f"slowest median {1000 * slowest:.0f} ms (target under 500 ms); load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    if scratch is not None and not args.keep:
        connection.close()
        for path in scratch.parent.iterdir():
            path.unlink()
        scratch.parent.rmdir()
    elif scratch is not None:
        print(f"kept: SQLITE_PATH={scratch}")


if __name__ == "__main__":
    main()
