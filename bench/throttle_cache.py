"""Benchmark: what one throttle count costs on the embedded cache, and how it grows with the
counters the cache holds, for the embedded cache the platform ships (Django's database cache in
the platform's SQLite database, ``runtime.database_cache``) and, when the package is installed,
the diskcache backend it replaced.

    .venv/bin/python bench/throttle_cache.py [--users 50] [--windows 200]

Uses a scratch SQLite database (WAL, as configured) and a scratch cache folder. Each window
counts every user twice, as two requests of an annotator in one minute would, on that window's
own key, so the cache ends holding users × windows counters (10,000 by default) and none has
expired: the worst case, since the database cache drops expired entries only once it holds
MAX_ENTRIES. Prints the median microseconds of a count in the first and the last ten windows.
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


def run(cache, *, users: int, windows: int) -> tuple[float, float, int]:
    from annotation.throttles import _count

    per_window = []
    for window in range(windows):
        times = []
        for user in range(users):
            for _ in range(2):
                t = time.perf_counter()
                _count(cache, f"throttle_user_{user}:{window}", 61)
                times.append(time.perf_counter() - t)
        per_window.append(statistics.median(times))
    assert _count(cache, "throttle_user_0:0", 61) == 3  # the counts were kept
    first, last = statistics.median(per_window[:10]), statistics.median(per_window[-10:])
    return first * 1e6, last * 1e6, users * windows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--windows", type=int, default=200)
    args = parser.parse_args()

    scratch = Path(tempfile.mkdtemp(prefix="argcrowd-bench-"))
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ["SQLITE_PATH"] = str(scratch / "bench.sqlite3")
    os.environ["ARGCROWD_VAR_DIR"] = str(scratch / "var")
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-" + "x" * 40)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.cache import caches
    from django.core.management import call_command

    call_command("createcachetable", verbosity=0)
    backends = [("database cache (runtime.database_cache, shipped)", caches["default"])]
    try:
        from diskcache import DjangoCache  # the backend before, if still installed
    except ImportError:
        print("diskcache is not installed: only the shipped backend is measured")
    else:
        backends.append(("diskcache 5.6.3 DjangoCache (before)",
                         DjangoCache(str(scratch / "diskcache"), {"DATABASE_TIMEOUT": 5})))
    print(f"{'backend':<52} {'µs/count, first 10 windows':>28} {'last 10 windows':>16} {'counters':>9}")
    for name, cache in backends:
        first, last, counters = run(cache, users=args.users, windows=args.windows)
        print(f"{name:<52} {first:>28.0f} {last:>16.0f} {counters:>9,}")


if __name__ == "__main__":
    main()
