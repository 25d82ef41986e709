"""Benchmark: server time of the staff pages of a filled project (by default the one that
``manage.py reproduce_ukpconvarg`` loads: 3,815 workers, 16,927 items, 84,445 annotations).

    SQLITE_PATH=… .venv/bin/python bench/staff_pages.py [--project ukpconvarg1] [--repeat 7] [--user admin]
    DATABASE_URL=postgres://… .venv/bin/python bench/staff_pages.py

Requests go through Django's test client as the given user (the whole stack: middleware,
sessions, permissions, queries, templates), against the database the settings name. Prints the
median and fastest of ``--repeat`` requests per page and the size of the response, and the
slowest page's median. A project above ``STAFF_LIVE_ASSIGNMENTS`` shows the tally a job
counts (``annotation.selectors.tallies``): it is counted here first, as the job worker would, and its
time printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--project", default="ukpconvarg1")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--user", default="admin", help="an existing user with access to the staff pages")
    parser.add_argument("--topic", help="topic of the gold page's graph (default: the project's first)")
    args = parser.parse_args()
    # Static files are served as they are, without a built manifest.
    os.environ.setdefault("DJANGO_DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from analysis.models import AnalysisRun
    from annotation.models import Project
    from annotation.selectors.tallies import project_is_large
    from annotation.services.tallies import tally_refresh

    settings.ALLOWED_HOSTS = ["*"]
    slug = args.project
    project = Project.objects.get(slug=slug)
    if project_is_large(project=project):
        started = time.perf_counter()
        tally = tally_refresh(project_id=project.pk)
        print(f"tally of the large project (the job's work): {len(tally.workers):,} workers "
              f"in {time.perf_counter() - started:.1f} s")
    base = f"/projects/{slug}"
    admin = "/admin/annotation"
    pages = [
        ("overview", f"{base}/overview/", {}),
        ("overview refresh (htmx poll)", f"{base}/overview/", {"HTTP_HX_REQUEST": "true"}),
        ("overview, worker search", f"{base}/overview/?wq=A1", {}),
        ("overview, worker page 40", f"{base}/overview/?wpage=40", {}),
        ("overview, partial items", f"{base}/overview/?istate=partial", {}),
        ("agreement dashboard", f"{base}/analysis/", {}),
        ("hourly.svg", f"{base}/analysis/hourly.svg", {}),
        ("admin: projects", f"{admin}/project/", {}),
        ("admin: the project", f"{admin}/project/{project.pk}/change/", {}),
        ("admin: annotators", f"{admin}/project/{project.pk}/annotators/", {}),
        ("admin: bonuses", f"{admin}/bonus/?project__id__exact={project.pk}", {}),
        ("admin: audio files", f"{admin}/project/{project.pk}/media/", {}),
        ("admin: items", f"{admin}/item/?project__id__exact={project.pk}", {}),
        ("admin: assignments", f"{admin}/assignment/?project__id__exact={project.pk}", {}),
        ("admin: annotations", f"{admin}/annotation/?assignment__project__id__exact={project.pk}", {}),
        ("admin: users", "/admin/auth/user/", {}),
        ("admin: analysis runs", "/admin/analysis/analysisrun/", {}),
    ]
    runs = AnalysisRun.objects.filter(project__slug=slug, status="done")
    agreement = runs.filter(kind="agreement").order_by("-pk").first()
    if agreement:
        pages.append(("votes.svg", f"{base}/analysis/runs/{agreement.pk}/votes.svg", {}))
    gold = runs.filter(kind="pairwise_gold").order_by("-pk").first()
    if gold:
        from task_types.pairwise.selectors import gold_topic

        topic = args.topic or gold_topic(run=gold, topic=None).topic
        pages.append(("gold page", f"{base}/gold/?topic={topic}", {}))
        pages.append(("gold graph.svg", f"{base}/gold/runs/{gold.pk}/graph.svg?topic={topic}", {}))
    from analysis.reports import page_url, report_pages

    for key, label in report_pages(project.task_type):
        url = page_url(key, slug)
        if not url.startswith(f"{base}/analysis/"):
            pages.append((f"report: {label}", url, {}))
    client = Client()
    client.force_login(get_user_model().objects.get(username=args.user))
    slowest = (0.0, "")
    for name, url, headers in pages:
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            response = client.get(url, **headers)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            times.append(time.perf_counter() - started)
        print(f"{name:30} {response.status_code}  median {1000 * statistics.median(times):6.0f} ms"
              f"  fastest {1000 * min(times):6.0f} ms  {len(body):>9,} bytes")
        slowest = max(slowest, (statistics.median(times), name))
    print(f"slowest page: {slowest[1]}, median {1000 * slowest[0]:.0f} ms (target under 500 ms)")


if __name__ == "__main__":
    main()
