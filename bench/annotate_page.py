"""Benchmark: server time of the annotation page, and of the count behind its "item k of n open
to you", on a project of ``--items`` items (default 20,000) made for the run and deleted after.

    SQLITE_PATH=/tmp/bench.db .venv/bin/python manage.py migrate && \\
    SQLITE_PATH=/tmp/bench.db .venv/bin/python bench/annotate_page.py [--items 20000] [--repeat 21]

Requests go through Django's test client (middleware, session, queries, template). Prints the
median of ``--repeat`` page loads and of ``worker_progress`` with and without that count.
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


def median_ms(call, repeat: int) -> float:
    call()
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=21)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_DEBUG", "1")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from annotation.models import Item, Project
    from annotation.selectors.progress import worker_progress
    from annotation.task_types import task_types

    settings.ALLOWED_HOSTS = ["*"]
    task = next(iter(task_types()))
    project = Project.objects.create(name="bench annotate page", slug="bench-annotate-page", task_type=task.slug,
                                     redundancy=5, state=Project.State.ACTIVE, open_to_all=True)
    worker = get_user_model().objects.create_user("bench-annotate-page-worker")
    try:
        # The type's own example item, as its import reads it, copied ``--items`` times.
        payload = task.clean_item(task.example().records[0]).payload
        Item.objects.bulk_create([Item(project=project, external_id=f"bench-{i}", payload=payload, position=i,
                                       redundancy=5) for i in range(args.items)], batch_size=2000)
        client = Client()
        client.force_login(worker)
        url = f"/projects/{project.slug}/annotate/"
        page = median_ms(lambda: client.get(url), args.repeat)
        plain = median_ms(lambda: worker_progress(project=project, worker=worker), args.repeat)
        counted = median_ms(lambda: worker_progress(project=project, worker=worker, holding=True), args.repeat)
        print(f"{args.items:,} items: annotation page {page:.1f} ms (median of {args.repeat}); "
              f"worker_progress {plain:.2f} ms, with the items open to the worker {counted:.2f} ms")
    finally:
        project.delete()
        worker.delete()


if __name__ == "__main__":
    main()
