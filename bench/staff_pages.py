"""Benchmark: server time of the staff pages of a filled project (by default the one that
``manage.py reproduce_ukpconvarg`` loads: 3,815 workers, 16,927 items, 84,445 annotations).

    SQLITE_PATH=… .venv/bin/python bench/staff_pages.py [--project ukpconvarg1] [--repeat 7] [--user admin]
    DATABASE_URL=postgres://… .venv/bin/python bench/staff_pages.py

Requests go through Django's test client as the given user (the whole stack: middleware,
sessions, permissions, queries, templates), against the database the settings name. Prints the
median and fastest of ``--repeat`` requests per page and the size of the response.
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

    settings.ALLOWED_HOSTS = ["*"]
    slug = args.project
    base = f"/projects/{slug}"
    pages = [
        ("overview", f"{base}/overview/", {}),
        ("overview refresh (htmx poll)", f"{base}/overview/", {"HTTP_HX_REQUEST": "true"}),
        ("overview, worker search", f"{base}/overview/?wq=A1", {}),
        ("overview, worker page 40", f"{base}/overview/?wpage=40", {}),
        ("overview, partial items", f"{base}/overview/?istate=partial", {}),
        ("agreement dashboard", f"{base}/analysis/", {}),
        ("hourly.svg", f"{base}/analysis/hourly.svg", {}),
    ]
    runs = AnalysisRun.objects.filter(project__slug=slug, status="done")
    agreement = runs.filter(kind="agreement").order_by("-pk").first()
    if agreement:
        pages.append(("votes.svg", f"{base}/analysis/runs/{agreement.pk}/votes.svg", {}))
    gold = runs.filter(kind="pairwise_gold").order_by("-pk").first()
    if gold:
        topic = args.topic or min(p["topic"] for p in gold.result["pairs"])
        pages.append(("gold page", f"{base}/gold/?topic={topic}", {}))
        pages.append(("gold graph.svg", f"{base}/gold/runs/{gold.pk}/graph.svg?topic={topic}", {}))
    client = Client()
    client.force_login(get_user_model().objects.get(username=args.user))
    for name, url, headers in pages:
        times = []
        for _ in range(args.repeat):
            started = time.perf_counter()
            response = client.get(url, **headers)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            times.append(time.perf_counter() - started)
        print(f"{name:30} {response.status_code}  median {1000 * statistics.median(times):6.0f} ms"
              f"  fastest {1000 * min(times):6.0f} ms  {len(body):>9,} bytes")


if __name__ == "__main__":
    main()
