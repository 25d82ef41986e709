"""Benchmark: the long frame of UKPConvArg1 read row by row and as PostgreSQL arrays (both through the ORM).

    BENCH_DATABASE_URL=postgres://… .venv/bin/python bench/frame_paths.py [--runs 7] [--project SLUG]

Loads UKPConvArg1's 1,052 arguments and 84,445 crowd labels (SHARED_DATA_DIR, ../shared/data) into the
PostgreSQL database named by BENCH_DATABASE_URL (give it one of its own: it is migrated and left
filled, and a later run reuses the project), or times the frame of an existing project
(``--project``, e.g. the ``bench`` project ``bench/platform_agreement.py`` leaves). Then, in one
process and alternately, so that a machine shared with others slows both alike, it builds
``annotation_frame`` on each path of ``analysis.frames`` (``arrays``: each column of a chunk
aggregated into one value, PostgreSQL's; ``rows``: ``values_list`` row by row, every other
database's), with the reasons and without, checks that both paths give the same frame, and prints
each path's median time (and spread) and the ratio of the throughputs.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The folder the settings read (SHARED_DATA_DIR, default ../shared/data).
DATA = Path(os.environ.get("SHARED_DATA_DIR", ROOT.parent / "shared" / "data")) / "ukpconvarg1"
SLUG = "ukpconvarg1-frame"
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--project", default="", help="time an existing project's frame instead of UKPConvArg1's")
    args = parser.parse_args()
    if not os.environ.get("BENCH_DATABASE_URL"):
        sys.exit("set BENCH_DATABASE_URL to a PostgreSQL database of the benchmark's own (the bulk path is PostgreSQL's)")
    os.environ["DATABASE_URL"] = os.environ["BENCH_DATABASE_URL"]
    os.environ.pop("REDIS_URL", None)
    os.environ.setdefault("DJANGO_SECRET_KEY", "benchmark-only-" + "x" * 40)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from annotation.models import Project

    call_command("migrate", verbosity=0)
    slug = args.project or SLUG
    if not Project.objects.filter(slug=slug).exists():
        if args.project:
            sys.exit(f"no project {args.project!r} in {connection.settings_dict['NAME']}")
        load(args.data)
    project = Project.objects.get(slug=slug)

    import analysis.frames as frames

    bulk_available = frames._bulk_available
    paths = {"arrays": bulk_available, "rows": lambda: False}
    times: dict[tuple[str, bool], list[float]] = {(path, r): [] for path in paths for r in (True, False)}
    rows = 0
    for run in range(args.runs + 1):  # the first round loads code and warms the caches, untimed
        for reasons in (True, False):
            built = {}
            for path, available in paths.items():
                frames._bulk_available = available
                t = time.perf_counter()
                built[path] = frames.annotation_frame(project=project, reasons=reasons).frame
                if run:
                    times[(path, reasons)].append(time.perf_counter() - t)
            assert built["arrays"].equals(built["rows"]), "the two paths gave different frames"
            rows = len(built["arrays"])
    frames._bulk_available = bulk_available

    print(f"PostgreSQL {connection.pg_version // 10000}, project {slug}: {rows:,} rows, {args.runs} runs each, alternating")
    for reasons in (True, False):
        arrays, by_row = times[("arrays", reasons)], times[("rows", reasons)]
        ratio = statistics.median(by_row) / statistics.median(arrays)
        print(f"{'with reasons   ' if reasons else 'without reasons'}  arrays {summary(arrays)}  rows {summary(by_row)}"
              f"  row-by-row throughput {1 / ratio:.2f}× the arrays' ({ratio:.2f}× the time)")


def summary(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:7.1f} ms ({min(values) * 1000:.1f}–{max(values) * 1000:.1f})"


def load(data: Path) -> None:
    from annotation.models import Project
    from annotation.services.crowd_results import crowd_import
    from task_types.pairwise.arguments_file import parse_arguments
    from task_types.pairwise.corpus import arguments_import

    print(f"loading UKPConvArg1 from {data} …", flush=True)
    arguments_import(rows=parse_arguments((data / "arguments.tsv").read_bytes()))
    project = Project.objects.create(slug=SLUG, name="UKPConvArg1 crowd labels", task_type="pairwise",
                                     redundancy=5, state=Project.State.CLOSED)
    crowd_import(project=project, data=(data / "assignments.tsv.gz").read_bytes(), filename="assignments.tsv.gz")


if __name__ == "__main__":
    main()
