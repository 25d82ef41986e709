"""Benchmark: what a web request costs when the work it starts is a background job, against
doing that work inside the request (as the platform did before, and as a tool that computes in
its save request does), on UKPConvArg1's 84,445 crowd labels.

    .venv/bin/python bench/job_requests.py [--repeat 5] [--data ../shared/data/ukpconvarg1]

Uses a scratch SQLite file and its own folder queue (nothing to start: the jobs are queued, not
run, so only the request is timed) or the PostgreSQL database named by BENCH_DATABASE_URL, which
must be empty. Requests go through Django's test client (the whole request/response cycle in
this process, without a network). For each action it prints the median request time when the
work is queued, the median time of the same work in the request, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def median_seconds(action, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        action()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "ukpconvarg1")
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="argcrowd-bench-"))
    if os.environ.get("BENCH_DATABASE_URL"):
        os.environ["DATABASE_URL"] = os.environ["BENCH_DATABASE_URL"]
    else:
        os.environ.pop("DATABASE_URL", None)
        os.environ["SQLITE_PATH"] = str(scratch / "bench.sqlite3")
    os.environ.pop("REDIS_URL", None)
    os.environ["ARGCROWD_VAR_DIR"] = str(scratch / "var")
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-" + "x" * 40)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.urls import reverse

    from analysis.models import AnalysisRun
    from analysis.services import analysis_run_create, analysis_run_execute
    from annotation.models import Project
    from annotation.services.accounts import user_create
    from annotation.services.crowd_results import crowd_import
    from task_types.pairwise.arguments_file import parse_arguments
    from task_types.pairwise.corpus import arguments_import

    settings.ALLOWED_HOSTS = ["testserver"]
    call_command("migrate", verbosity=0)
    print(f"database: {connection.vendor}; queue: {settings.CELERY_BROKER_URL}")
    arguments_import(rows=parse_arguments((args.data / "arguments.tsv").read_bytes()))
    labels = (args.data / "assignments.tsv.gz").read_bytes()
    project = Project.objects.create(slug="bench", name="bench", task_type="pairwise", redundancy=5)
    t = time.perf_counter()
    crowd_import(project=project, data=labels, filename="assignments.tsv.gz")
    import_inline = time.perf_counter() - t
    print(f"loaded {project.items.count():,} items with their labels in {import_inline:.1f} s")

    admin = user_create(username="bench-admin", role="admin", password="bench-password-1")
    admin.is_superuser = True
    admin.save()
    client = Client()
    client.force_login(admin)

    def post(name, *path_args, data=None):
        response = client.post(reverse(name, args=path_args), data or {})
        assert response.status_code == 302, (name, response.status_code)

    # The first request of a process loads the views and opens the queue; a server pays that once.
    post("analysis-dashboard", project.slug, data={"action": "start"})
    rows = []
    queued = median_seconds(lambda: post("analysis-dashboard", project.slug, data={"action": "start"}), args.repeat)
    t = time.perf_counter()
    analysis_run_execute(run_id=analysis_run_create(project=project, kind="agreement", enqueue=False).pk)
    rows.append(("Compute agreement", queued, time.perf_counter() - t))

    queued = median_seconds(lambda: post("analysis-recompute-all", project.slug), args.repeat)
    t = time.perf_counter()
    for kind in ("agreement", "pairwise_gold"):
        analysis_run_execute(run_id=analysis_run_create(project=project, kind=kind, enqueue=False).pk)
    rows.append(("Recompute every analysis", queued, time.perf_counter() - t))

    targets = [Project.objects.create(slug=f"bench-import-{i}", name="import", task_type="pairwise", redundancy=5)
               for i in range(args.repeat)]

    def upload():
        target = targets.pop()
        post_url = reverse("admin:annotation_project_crowd", args=[target.pk])
        response = client.post(post_url, {"file": SimpleUploadedFile("assignments.tsv.gz", labels), "source": "mturk"})
        assert response.status_code == 302 and "/imports/" in response.url, response.status_code

    queued = median_seconds(upload, args.repeat)
    rows.append(("Import the 84,445 crowd labels", queued, import_inline))
    AnalysisRun.objects.all().delete()

    print(f"\n{'action (median of ' + str(args.repeat) + ')':<36}{'queued':>10}{'in request':>12}{'ratio':>8}")
    for name, fast, slow in rows:
        print(f"{name:<36}{fast * 1000:>8.0f} ms{slow:>10.2f} s{slow / fast:>7.0f}x")


if __name__ == "__main__":
    main()
