"""Benchmark: what a throttle check costs a request on the embedded cache, and whether that cost
grows with the counters written, against the other caches that could serve the embedded mode.

    .venv/bin/python -m pip install --target /tmp/diskcache diskcache==5.6.3   # the peer only
    PYTHONPATH=/tmp/diskcache .venv/bin/python bench/throttle_cache.py [--counters 10000] [--processes 2]

Each cache is driven through the platform's own throttle (``LoginThrottle.allow_request``, a
throttle made per request as DRF does) with requests from ``--counters`` distinct client
addresses, each checked twice (the first check adds its counter, the second increments it), so
the cache ends up holding that many counters. Printed per cache: the median time of one check
over the first and over the last 1,000 addresses (a flat cache shows the same figure twice), and
what ``--processes`` processes counting 2,000 times each on one shared counter found at the end
(a cache whose increment is a read then a write loses counts).

The caches: ours (``runtime.sqlite_cache.SQLiteCache``), diskcache 5.6.3's ``DjangoCache`` (the
usual SQLite-file cache for Django; left out when it cannot be imported), Django's database cache in an
SQLite file of its own (its own database alias and router, ``MAX_ENTRIES`` 100,000 so that it
keeps every counter) and Django's file cache (``MAX_ENTRIES`` 100,000). Everything lives in a
scratch folder.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SAMPLE = 1_000
SHARED_COUNTS = 2_000


class CacheRouter:
    """Django's database cache table (app label ``django_cache``) goes to its own SQLite file."""

    def db_for_read(self, model, **hints):
        return "cachedb" if model._meta.app_label == "django_cache" else None

    db_for_write = db_for_read

    def allow_migrate(self, db, app_label, **hints):
        return (db == "cachedb") == (app_label == "django_cache")


def caches_to_compare(scratch: Path) -> dict[str, dict]:
    found = {
        "ours: SQLiteCache": {"BACKEND": "runtime.sqlite_cache.SQLiteCache", "LOCATION": str(scratch / "ours"),
                              "OPTIONS": {"BUSY_TIMEOUT": 5}},
    }
    try:
        import diskcache  # noqa: F401
    except ImportError:
        print("diskcache is not importable: left out (see the module's docstring)")
    else:
        found["diskcache 5.6.3 DjangoCache"] = {"BACKEND": "diskcache.DjangoCache", "LOCATION": str(scratch / "diskcache"),
                                                "OPTIONS": {}, "DATABASE_TIMEOUT": 5}
    found["Django DatabaseCache, own SQLite file"] = {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "cache_entry",
        "OPTIONS": {"MAX_ENTRIES": 100_000}}
    found["Django FileBasedCache"] = {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                                      "LOCATION": str(scratch / "files"), "OPTIONS": {"MAX_ENTRIES": 100_000}}
    return found


def check_times(counters: int) -> list[float]:
    """Seconds of each throttle check: every address twice, in order."""
    from django.test import RequestFactory

    from annotation.throttles import LoginThrottle

    factory = RequestFactory()
    times = []
    for n in range(counters):
        request = factory.post("/accounts/login/", REMOTE_ADDR=f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}")
        for _ in range(2):
            started = time.perf_counter()
            LoginThrottle().allow_request(request, None)
            times.append(time.perf_counter() - started)
    return times


def count_shared(key: str, results) -> None:
    """One process counting SHARED_COUNTS times on ``key`` (a fresh connection in the child)."""
    from django.core.cache import caches
    from django.db import connections

    for conn in connections.all(initialized_only=True):
        conn.connection = None  # the parent's; never used across a fork
    cache = caches.create_connection("default")
    from annotation.throttles import _count

    for _ in range(SHARED_COUNTS):
        _count(cache, key, 600)
    results.put(os.getpid())


def shared_count(processes: int) -> int:
    from django.core.cache import caches

    key = "bench-shared"
    caches["default"].delete(key)
    results: multiprocessing.Queue = multiprocessing.Queue()
    context = multiprocessing.get_context("fork")
    started = [context.Process(target=count_shared, args=(key, results)) for _ in range(processes)]
    for proc in started:
        proc.start()
    for proc in started:
        proc.join()
    return int(caches["default"].get(key))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--counters", type=int, default=10_000)
    parser.add_argument("--processes", type=int, default=2)
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="argcrowd-bench-"))
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ["SQLITE_PATH"] = str(scratch / "bench.sqlite3")
    os.environ["ARGCROWD_VAR_DIR"] = str(scratch / "var")
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-" + "x" * 40)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings

    settings.DATABASES["cachedb"] = {**settings.DATABASES["default"], "NAME": str(scratch / "cache.sqlite3")}
    settings.DATABASE_ROUTERS = [*settings.DATABASE_ROUTERS, f"{__name__}.CacheRouter"]
    import django

    django.setup()
    from django.core.management import call_command
    from django.test.utils import override_settings

    compared = caches_to_compare(scratch)
    total = SHARED_COUNTS * args.processes
    print(f"{args.counters:,} client addresses, each checked twice by LoginThrottle; median ms of one check")
    print(f"{'cache':40} {'first 1,000':>12} {'last 1,000':>12} {'all':>8}   {args.processes} processes x "
          f"{SHARED_COUNTS:,} counts on one counter")
    for name, config in compared.items():
        with override_settings(CACHES={"default": config}):
            if "DatabaseCache" in config["BACKEND"]:
                call_command("createcachetable", database="cachedb")
            times = check_times(args.counters)
            first = statistics.median(times[: 2 * SAMPLE]) * 1000
            last = statistics.median(times[-2 * SAMPLE:]) * 1000
            every = statistics.median(times) * 1000
            counted = shared_count(args.processes)
        lost = f"{total - counted:,} lost" if counted < total else "none lost"
        print(f"{name:40} {first:12.3f} {last:12.3f} {every:8.3f}   {counted:,} of {total:,} ({lost})")


if __name__ == "__main__":
    main()
