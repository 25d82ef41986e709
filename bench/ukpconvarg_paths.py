"""Benchmark: what a researcher waits for on UKPConvArg1 besides the pipeline, the import of its
84,445 crowd labels (``reproduce_ukpconvarg``'s first stage) and the raw export of them
(``annotations.csv``), against another checkout of the platform measured in the same command.

    .venv/bin/python bench/ukpconvarg_paths.py import [--against DIR] [--runs 3]
    .venv/bin/python bench/ukpconvarg_paths.py export [--against DIR] [--runs 3]

Every measurement runs in a fresh interpreter, ours and the other checkout's (``--against``, a
worktree of an older commit, say) alternately, so that a machine shared with others slows both
alike; it prints each run, then the median and the spread (lowest–highest) of each side and the
ratio of the medians. Without ``BENCH_DATABASE_URL`` the database is a scratch SQLite file;
with it, the PostgreSQL database of that name, which the benchmark drops and creates again (give
it one of its own).

``import``: a fresh database for each run; the arguments and the labels are imported as the
command imports them: wall time, the process's CPU time and its peak resident memory.
``export``: the labels are imported once (with this checkout's code), then each run writes the
project's ``annotations.csv``, by the command (``export_annotations --out``) and as the staff
page's download (read to its end through Django's test client, after the first piece of one
download to load the pages as a running server has them): wall time, CPU time and how far
the process's peak resident memory rose above what it held when the export began (Linux), for
the whole project and for a project with half of its labels (memory that does not grow with the
rows stays level).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "ukpconvarg1"

# Run by a fresh interpreter in the checkout measured; prints one JSON object.
SETUP = r"""
import json, os, resource, sys, time
sys.path.insert(0, os.getcwd())
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
import django
django.setup()
from pathlib import Path
args = json.loads(sys.argv[1])


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def peak_since_reset_mb():
    with open("/proc/self/status") as f:
        return int(f.read().split("VmHWM:")[1].split()[0]) / 1024


def reset_peak():
    # Linux: the peak resident size starts again from the present one.
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
"""
IMPORT = SETUP + r"""
from django.core.management import call_command
call_command("migrate", verbosity=0)
try:
    from task_types.pairwise.arguments_file import parse_arguments
    from task_types.pairwise.corpus import arguments_import
except ImportError:  # a tree from before the corpus moved to the pairwise app
    from annotation.importers import parse_arguments
    from annotation.services.corpus import arguments_import
from annotation.models import Project
from annotation.services.crowd_results import crowd_import
data = Path(args["data"])
wall, cpu = time.perf_counter(), time.process_time()
arguments_import(rows=parse_arguments((data / "arguments.tsv").read_bytes()))
project = Project.objects.create(slug=args["slug"], name="UKPConvArg1 crowd labels", task_type="pairwise",
                                 redundancy=5, state=Project.State.CLOSED)
result = crowd_import(project=project, data=Path(args["labels"]).read_bytes(), filename="assignments.tsv.gz")
print(json.dumps({"seconds": time.perf_counter() - wall, "cpu": time.process_time() - cpu, "rows": result.annotations,
                  "peak_mb": peak_mb()}))
"""
EXPORT = SETUP + r"""
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from annotation.models import Project
project = Project.objects.get(slug=args["slug"])
out = Path(args["out"])
if args["path"] == "download":
    from django.contrib.auth import get_user_model
    settings.ALLOWED_HOSTS = ["testserver"]
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-researcher"))
    # A server has loaded its pages before: the first piece of a download, untimed.
    warm = client.get(f"/projects/{project.slug}/export/annotations.csv")
    next(iter(warm.streaming_content))
    warm.close()
reset_peak()
before = rss_mb()
wall, cpu = time.perf_counter(), time.process_time()
if args["path"] == "command":
    call_command("export_annotations", project.slug, "--out", str(out), stderr=open(os.devnull, "w"))
    size = out.stat().st_size
else:
    response = client.get(f"/projects/{project.slug}/export/annotations.csv")
    assert response.status_code == 200, response.status_code
    size = sum(len(piece) for piece in response.streaming_content)
print(json.dumps({"seconds": time.perf_counter() - wall, "cpu": time.process_time() - cpu, "bytes": size,
                  "rise_mb": peak_since_reset_mb() - before}))
"""
LOAD = SETUP + r"""
from django.core.management import call_command
call_command("migrate", verbosity=0)
try:
    from task_types.pairwise.arguments_file import parse_arguments
    from task_types.pairwise.corpus import arguments_import
except ImportError:  # a tree from before the corpus moved to the pairwise app
    from annotation.importers import parse_arguments
    from annotation.services.corpus import arguments_import
from annotation.models import Project
from annotation.services.accounts import user_create
from annotation.services.crowd_results import crowd_import
data = Path(args["data"])
arguments_import(rows=parse_arguments((data / "arguments.tsv").read_bytes()))
for slug, labels in args["projects"].items():
    project = Project.objects.create(slug=slug, name=slug, task_type="pairwise", redundancy=5, state=Project.State.CLOSED)
    crowd_import(project=project, data=Path(labels).read_bytes(), filename="assignments.tsv.gz")
user_create(username="bench-researcher", role="researcher")
print(json.dumps({"projects": len(args["projects"])}))
"""


class Database:
    """The scratch database every run uses: a SQLite file, or BENCH_DATABASE_URL's database."""

    def __init__(self, scratch: Path) -> None:
        self.url = os.environ.get("BENCH_DATABASE_URL", "")
        self.sqlite = scratch / "bench.sqlite3"
        self.name = "PostgreSQL" if self.url else "SQLite"

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "DJANGO_DEBUG")}
        env["DJANGO_SECRET_KEY"] = "benchmark-only-" + "x" * 40
        env["ARGCROWD_VAR_DIR"] = str(self.sqlite.parent / "var")
        if self.url:
            env["DATABASE_URL"] = self.url
        else:
            env["SQLITE_PATH"] = str(self.sqlite)
        return env

    def recreate(self) -> None:
        if not self.url:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.sqlite}{suffix}").unlink(missing_ok=True)
            return
        import psycopg

        target = urlparse(self.url)
        name = target.path.lstrip("/")
        with psycopg.connect(target._replace(path="/postgres").geturl(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')


def child(code: Path, script: str, args: dict, db: Database) -> dict:
    done = subprocess.run([sys.executable, "-c", script, json.dumps(args)], cwd=code, env=db.env(),
                          capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"the run in {code} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):6.2f} s ({min(values):.2f}–{max(values):.2f})"


def half_of(labels: Path, scratch: Path) -> Path:
    """The first half of the labels' lines, as a file of the same kind."""
    lines = gzip.decompress(labels.read_bytes()).decode("utf-8").splitlines(keepends=True)
    half = scratch / "half.tsv.gz"
    half.write_bytes(gzip.compress("".join(lines[: 1 + (len(lines) - 1) // 2]).encode("utf-8")))
    return half


def bench_import(sides: dict[str, Path], runs: int, data: Path, db: Database) -> None:
    results: dict[str, list[dict]] = {side: [] for side in sides}
    for n in range(runs):
        for side, code in sides.items():
            db.recreate()
            r = child(code, IMPORT, {"data": str(data), "labels": str(data / "assignments.tsv.gz"), "slug": "ukpconvarg1"}, db)
            results[side].append(r)
            print(f"run {n + 1} {side:<7} {r['rows']:,} labels in {r['seconds']:6.2f} s, CPU {r['cpu']:6.2f} s, "
                  f"peak {r['peak_mb']:.0f} MB", flush=True)
    print(f"\nimport of the arguments and the labels on {db.name}, median of {runs} (lowest–highest):")
    for side, rs in results.items():
        print(f"  {side:<7} {summary([r['seconds'] for r in rs])}  CPU {summary([r['cpu'] for r in rs])}  "
              f"peak {statistics.median(r['peak_mb'] for r in rs):.0f} MB")
    _ratio(results, "seconds")


def bench_export(sides: dict[str, Path], runs: int, data: Path, db: Database, scratch: Path) -> None:
    db.recreate()
    labels = data / "assignments.tsv.gz"
    projects = {"ukpconvarg1": str(labels), "ukpconvarg1-half": str(half_of(labels, scratch))}
    child(ROOT, LOAD, {"data": str(data), "projects": projects}, db)
    for path in ("command", "download"):
        results: dict[str, list[dict]] = {side: [] for side in sides}
        for n in range(runs):
            for side, code in sides.items():
                r = child(code, EXPORT, {"slug": "ukpconvarg1", "path": path, "out": str(scratch / "annotations.csv")}, db)
                results[side].append(r)
                print(f"run {n + 1} {side:<7} {path:<8} {r['bytes'] / 1e6:.1f} MB in {r['seconds']:6.2f} s, "
                      f"CPU {r['cpu']:6.2f} s, memory +{r['rise_mb']:.0f} MB", flush=True)
        print(f"\nannotations.csv by the {path} on {db.name}, median of {runs} (lowest–highest):")
        for side, rs in results.items():
            print(f"  {side:<7} {summary([r['seconds'] for r in rs])}  CPU {summary([r['cpu'] for r in rs])}  "
                  f"memory +{statistics.median(r['rise_mb'] for r in rs):.0f} MB")
        _ratio(results, "seconds")
        print()
    print(f"how far the memory rose while exporting, by the number of labels, on {db.name}:")
    for path in ("command", "download"):
        for side, code in sides.items():
            rises = {slug: child(code, EXPORT, {"slug": slug, "path": path, "out": str(scratch / "annotations.csv")}, db)
                     for slug in ("ukpconvarg1-half", "ukpconvarg1")}
            print(f"  {side:<7} {path:<8} " + ", ".join(f"{slug}: +{r['rise_mb']:.0f} MB ({r['bytes'] / 1e6:.1f} MB)"
                                                       for slug, r in rises.items()))


def _ratio(results: dict[str, list[dict]], key: str) -> None:
    if "against" in results:
        ours, theirs = (statistics.median(r[key] for r in results[side]) for side in ("ours", "against"))
        print(f"  the other checkout takes {theirs / ours:.1f}x as long")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["import", "export"])
    parser.add_argument("--against", type=Path, help="another checkout of the platform to measure alike")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--data", type=Path, default=DATA)
    args = parser.parse_args()
    sides = {"ours": ROOT}
    if args.against:
        sides["against"] = args.against.resolve()
    scratch = Path(tempfile.mkdtemp(prefix="argcrowd-bench-"))
    try:
        db = Database(scratch)
        if args.what == "import":
            bench_import(sides, args.runs, args.data, db)
        else:
            bench_export(sides, args.runs, args.data, db, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
