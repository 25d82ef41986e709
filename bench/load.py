"""Benchmark: the annotator's round trip under load, through the public API of a running server.

It starts nothing by itself. Three steps, the first and last with the server's own settings
(the same DATABASE_URL), the middle one only over HTTP (the simulated annotators are in
``load_annotators.py``; the peer's preparation and check in ``load_peer.py``):

    # a load project with ITEMS pairwise items (N distinct answers each) and N annotators with tokens
    DJANGO_SECRET_KEY=… DATABASE_URL=… .venv/bin/python bench/load.py prepare --annotators 50 --items 4000
    # the server under test, e.g. DJANGO_SECRET_KEY=… DATABASE_URL=… .venv/bin/gunicorn -w 4 config.wsgi
    .venv/bin/python bench/load.py run --url http://127.0.0.1:8000 --annotators 50 --seconds 30
    # the database invariants after the run
    DJANGO_SECRET_KEY=… DATABASE_URL=… .venv/bin/python bench/load.py check

``run`` gives each simulated annotator a thread with its own keep-alive connection, looping
next → submit (a 60-character reason) as fast as the server answers, or with ``--combined``
one ``submit?next=1`` per item (the answer brings the next assignment), with ``--think S``
after a pause of S seconds on average on each item, and prints submits per
second, p50/p95/max per request kind, the annotator's wait per item (p95, and the mean beside
annotators / throughput: with no pause between items the two agree, so at 50 annotators a
p95 under 150 ms needs more than 333 submits/s) and the errors. ``check`` prints the invariants: no item
over-filled, slot counts equal to the assignments holding them, no worker twice on an item, at
most one open assignment per worker, one annotation per submitted assignment.

``run --baseline-url URL`` drives a second server on the same database, running other code (a
git worktree of an earlier commit), in turn with this one (A B A B …, ``--rounds``), with
quality control off and, with ``--checks``, on, and prints the ratio of their CPU per item.

The peer, Label Studio, runs under the same load and server shape beside it (its ``/next`` then
its annotation POST per item, the loop its editor runs), and ``run --label-studio URL`` drives
it right after this platform, with the same annotators and seconds, and prints the ratios.
Label Studio lives in a virtualenv of its own, on a PostgreSQL database of its own:

    # env for both steps: DJANGO_SETTINGS_MODULE=core.settings.label_studio DJANGO_DB=default
    #   POSTGRE_NAME=… POSTGRE_HOST=127.0.0.1 POSTGRE_USER=postgres POSTGRE_PASSWORD=
    #   LABEL_STUDIO_ENABLE_LEGACY_API_TOKEN=true DEBUG=false SECRET_KEY=…, PYTHONPATH=its package folder
    $LS/bin/python -m django migrate
    $LS/bin/python /path/to/bench/load.py prepare-label-studio --annotators 50 --items 30000
    $LS/bin/gunicorn -w 4 -b 127.0.0.1:8080 core.wsgi
    .venv/bin/python bench/load.py run --url http://127.0.0.1:8000 --label-studio http://127.0.0.1:8080 …
    $LS/bin/python /path/to/bench/load.py check-label-studio
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import load_peer  # noqa: E402
import server_cpu  # noqa: E402
from load_annotators import Annotator, LabelStudioAnnotator  # noqa: E402

SLUG = "bench-load"
# The same project with quality control on: 5% gold questions with feedback and a gold-accuracy
# rule, so that ``run --checks`` prints what the checks cost per item, both measured in one run.
CHECKS_SLUG = "bench-load-checks"
# Topics of the load projects' items.
TOPICS = 32
TOKENS = Path(os.environ.get("BENCH_LOAD_TOKENS", "/tmp/argcrowd-load-tokens.json"))



def _django():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def _load_project(slug: str, name: str, args):
    from annotation.models import Item, Project
    from annotation.task_types import get_task_type

    project, _ = Project.objects.update_or_create(slug=slug, defaults={
        "name": name, "task_type": "pairwise", "redundancy": args.redundancy,
        "state": Project.State.ACTIVE, "open_to_all": True, "assignment_order": Project.Order.SPREAD})
    project.items.all().delete()
    task = get_task_type("pairwise")
    # Topics in blocks, as a corpus file holds them (UKPConvArg1 has 32), each item stored with
    # its group as an import stores it: a gold question is drawn from its real item's topic.
    payloads = [{"topic": f"load-{n * TOPICS // args.items}", "prompt": "Is load testing useful?", "stance": "Yes",
                 "arg1": {"id": f"a{n}", "text": f"Argument {n} says load tests find slow paths."},
                 "arg2": {"id": f"b{n}", "text": f"Argument {n} says they find lock contention."}}
                for n in range(args.items)]
    Item.objects.bulk_create([
        Item(project=project, external_id=f"load{n}", position=n, redundancy=args.redundancy, payload=payload,
             group=task.item_group(payload))
        for n, payload in enumerate(payloads)], batch_size=2000)
    return project


def _add_checks(project, args) -> int:
    """Turn every 20th item into a gold question (label a1, a tie accepted), set the gold rate
    to 5% with feedback, and add a gold-accuracy rule that sends a worker to review (the
    simulated annotators answer at random, so the rule fires: its cost is part of the figure)
    and the per-answer rules (too fast, position bias, automated browser)."""
    from annotation.models import CHECK_ITEM_REDUNDANCY, Item, ItemKind
    from annotation.rule_defaults import DEFAULTS
    from quality.models import GoldAnswer, QualityRule
    from quality.services.settings import quality_policy_update

    gold = list(Item.objects.filter(project=project, position__in=range(0, args.items, 20)))
    Item.objects.filter(pk__in=[i.pk for i in gold]).update(kind=ItemKind.GOLD, redundancy=CHECK_ITEM_REDUNDANCY)
    GoldAnswer.objects.bulk_create([GoldAnswer(item=i, answer={"label": "a1"}, accept=[{"label": "equal"}],
                                               explanation="A1 names a concrete cost.") for i in gold])
    # The simulated annotators answer at random, so the rules send them to review: work goes on
    # meanwhile (review_pauses_work off), or the project would stop answering them.
    quality_policy_update(project=project, values={"gold_rate": 0.05, "gold_feedback": True, "review_pauses_work": False},
                          actor=None)
    QualityRule.objects.filter(project=project).delete()
    QualityRule.objects.create(project=project, kind=QualityRule.Kind.GOLD_ACCURACY, action=QualityRule.Action.REVIEW,
                               threshold=0.9, min_answers=3)
    # And the rules judged on every answer as it arrives, at their defaults.
    for kind in (QualityRule.Kind.TOO_FAST, QualityRule.Kind.POSITION_BIAS, QualityRule.Kind.AUTOMATION):
        QualityRule.objects.create(project=project, kind=kind, action=QualityRule.Action.REVIEW,
                                   threshold=DEFAULTS[kind]["threshold"], min_answers=DEFAULTS[kind]["min_answers"])
    return len(gold)


def prepare(args) -> None:
    _django()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from annotation.services.accounts import role_set

    User = get_user_model()
    _load_project(SLUG, "Load benchmark", args)
    gold = _add_checks(_load_project(CHECKS_SLUG, "Load benchmark with quality control", args), args)
    tokens = []
    for i in range(args.annotators):
        user, created = User.objects.get_or_create(username=f"load{i}")
        if created:
            role_set(user=user, role="annotator")
        tokens.append(Token.objects.get_or_create(user=user)[0].key)
    from django.db import connection

    if connection.vendor == "postgresql":
        # Statistics as autovacuum would leave them after a bulk load: plans as a running server's.
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
    TOKENS.write_text(json.dumps({"slug": SLUG, "checks_slug": CHECKS_SLUG, "tokens": tokens}))
    print(f"projects {SLUG} and {CHECKS_SLUG} (the same with {gold} gold questions at a 5% rate, feedback, a "
          f"gold-accuracy rule and the per-answer rules): {args.items} items × {args.redundancy} answers; {len(tokens)} annotators; "
          f"tokens in {TOKENS}")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def stored_count(database_url: str, sql: str, param: object) -> int:
    """Rows the server stored, counted in its own database (PostgreSQL or a SQLite file)."""
    parsed = urlparse(database_url)
    if parsed.scheme.startswith("postgres"):
        import psycopg

        with psycopg.connect(database_url) as conn:
            return conn.execute(sql.replace("?", "%s"), [param]).fetchone()[0]
    import sqlite3

    # sqlite:////absolute/path, as DATABASE_URL spells a SQLite file (or the path itself).
    path = database_url.removeprefix("sqlite:///")
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        return conn.execute(sql, [param]).fetchone()[0]


OURS_STORED = ("SELECT count(*) FROM annotation_annotation n JOIN annotation_assignment a ON a.id = n.assignment_id "
               "JOIN annotation_project p ON p.id = a.project_id WHERE p.slug = ?")


@dataclass
class Server:
    """A server under test: its URL, its database (to count what it stored) and the processes
    whose CPU time is its cost: the web server's and, for PostgreSQL, the database server's."""

    name: str
    url: str
    database_url: str
    count_sql: str
    place: object
    redis_url: str = ""

    def processes(self) -> dict[str, list[int]]:
        """The roots of the server's process trees: the web server's, and the PostgreSQL server's."""
        found = {"web": server_cpu.listening_pids(urlparse(self.url).port or 80)}
        parsed = urlparse(self.database_url)
        if parsed.scheme.startswith("postgres"):
            found["database"] = server_cpu.listening_pids(parsed.port or 5432)
        if self.redis_url:
            found["cache"] = server_cpu.listening_pids(urlparse(self.redis_url).port or 6379)
        return found


def drive(cls: type[Annotator], server: Server, tokens: list[str], args, combined: bool) -> dict:
    """N annotators for T seconds against one server, after ``--warmup`` seconds of the same
    load; prints and returns what they measured, with the server's CPU time per stored item."""
    place = str(server.place)
    if args.warmup:
        warm = [cls(server.url, t, place, time.perf_counter() + args.warmup, seed=1000 + i, combined=combined,
                    think=args.think) for i, t in enumerate(tokens)]
        for w in warm:
            w.start()
        for w in warm:
            w.join()
    roots = server.processes()
    if not all(roots.values()):
        raise SystemExit(f"no process of {server.name} found listening for {', '.join(roots)}: its CPU cannot be measured")
    windows = {part: server_cpu.Window(pids) for part, pids in roots.items()}
    stored_before = stored_count(server.database_url, server.count_sql, server.place)
    start = time.perf_counter()
    for window in windows.values():
        window.start()
    workers = [cls(server.url, t, place, start + args.seconds, seed=i, combined=combined, think=args.think)
               for i, t in enumerate(tokens)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    for window in windows.values():
        window.stop()
    elapsed = time.perf_counter() - start
    stored = stored_count(server.database_url, server.count_sql, server.place) - stored_before
    submits = sum(w.submits for w in workers)
    errors = [e for w in workers for e in w.errors]
    mode = "submit?next=1" if combined else "next, then submit"
    if args.think:
        mode += f", thinking {args.think:g} s on average"
    cpu_by_part = {part: window.cpu() for part, window in windows.items()}
    cpu = sum(cpu_by_part.values())
    cores = len(os.sched_getaffinity(0))
    print(f"{server.name}: {args.annotators} annotators ({mode}), {elapsed:.1f} s: {stored} items stored "
          f"({submits} acknowledged), {len(errors)} errors"
          f"{(' (' + ', '.join(sorted(set(errors))) + ')') if errors else ''}")
    if stored != submits:
        raise SystemExit(f"  refused: the server acknowledged {submits} new answers but stored {stored}")
    if not stored:
        raise SystemExit("  refused: nothing was stored")
    per_item = cpu / stored
    rate = stored / elapsed
    # The server cannot spend more CPU than the machine has: a rate above cores / CPU per item
    # means that part of the server's work was not seen, and the figure would overstate.
    if rate > 1.02 * cores / per_item:
        raise SystemExit(f"  refused: {rate:.1f} items/s would need {rate * per_item:.2f} of the {cores} cores; "
                         f"the server's CPU was not fully measured (processes {roots})")
    parts = ""
    if "database" in windows:
        name = urlparse(server.database_url).path.lstrip("/")
        # A backend's command line names its database: "postgres: USER DATABASE HOST(PORT) STATE".
        connections = windows["database"].cpu(match=f" {name} ")
        parts = f" (web {1000 * cpu_by_part['web'] / stored:.2f} ms, database {1000 * cpu_by_part['database'] / stored:.2f}"
        parts += f" ms, of which its open connections to {name} {1000 * connections / stored:.2f} ms"
        if "cache" in windows:
            parts += f", Redis {1000 * cpu_by_part['cache'] / stored:.2f} ms"
        parts += ")"
    print(f"  {rate:.1f} items/s; server CPU {1000 * per_item:.2f} ms per stored item{parts}; "
          f"{cpu / elapsed:.2f} of {cores} cores busy")
    p95_of = {}
    for kind in ("next", "submit"):
        times = [t for w in workers for t in w.times[kind]]
        p95_of[kind] = percentile(times, 0.95)
        print(f"  {kind:<6} {len(times):>7} requests  p50 {1000 * statistics.median(times) if times else float('nan'):6.1f} ms"
              f"  p95 {1000 * percentile(times, 0.95):6.1f} ms  max {1000 * max(times, default=float('nan')):7.1f} ms")
    # The annotator's wait per item: next and submit, or the one submit that brings the next item.
    waits = ([t for w in workers for t in w.times["submit"]] if combined else
             [a + b for w in workers for a, b in zip(w.times["next"], w.times["submit"], strict=False)])
    p95 = percentile(waits, 0.95)
    # Annotators who never pause keep one request each in flight, so the mean wait per item
    # is annotators / throughput (Little's law), whatever the server does with its time.
    print(f"  per item p95 {1000 * p95:.1f} ms; mean wait per item {1000 * statistics.mean(waits):.1f} ms; "
          f"annotators / throughput = {1000 * args.annotators / rate:.1f} ms")
    return {"rate": rate, "p95": p95, "cpu": per_item, "errors": len(errors), "submit_p95": p95_of["submit"],
            "next_p95": p95_of["next"]}


def run(args) -> None:
    setup = json.loads(TOKENS.read_text())
    tokens = setup["tokens"][: args.annotators]
    if len(tokens) < args.annotators:
        raise SystemExit(f"only {len(tokens)} annotators prepared; run prepare --annotators {args.annotators}")
    peer = None
    if args.label_studio:
        peer = json.loads(load_peer.PEER_TOKENS.read_text())
        if len(peer["tokens"]) < args.annotators:
            raise SystemExit(f"only {len(peer['tokens'])} Label Studio annotators prepared")
        if not args.label_studio_database_url:
            raise SystemExit("--label-studio needs --label-studio-database-url (to count what it stored)")
    speed = server_cpu.calibration()
    print(f"machine: {len(os.sched_getaffinity(0))} cores; a 10-million-iteration Python loop takes {speed:.2f} s")
    if args.baseline_url:
        compare(args, setup, tokens)
        print(f"machine after: the same loop takes {server_cpu.calibration():.2f} s")
        return
    ours = drive(Annotator, Server("this platform", args.url, args.database_url, OURS_STORED, setup["slug"],
                        args.redis_url),
                 tokens, args, args.combined)
    if args.checks:
        checked = drive(Annotator, Server("this platform, quality control on", args.url, args.database_url,
                                          OURS_STORED, setup["checks_slug"], args.redis_url),
                        tokens, args, args.combined)
        print(f"quality control (5% gold with feedback, a gold-accuracy rule, the per-answer rules): server CPU per item "
              f"{1000 * checked['cpu']:.2f} ms against {1000 * ours['cpu']:.2f} ms without "
              f"({1000 * (checked['cpu'] - ours['cpu']):+.2f} ms per item)")
    if peer is None:
        return
    theirs = drive(LabelStudioAnnotator,
                   Server("Label Studio (its next, then its annotation)", args.label_studio,
                          args.label_studio_database_url, load_peer.STORED, peer["project"]),
                   peer["tokens"][: args.annotators], args, combined=False)
    print(f"machine after: the same loop takes {server_cpu.calibration():.2f} s")
    print(f"items/s: {ours['rate'] / theirs['rate']:.1f}× Label Studio's; server CPU per item: "
          f"{theirs['cpu'] / ours['cpu']:.1f}× less; p95 per item: {theirs['p95'] / ours['p95']:.1f}× shorter")


def compare(args, setup: dict, tokens: list[str]) -> None:
    """This server against ``--baseline-url`` (the same database, another checkout's code),
    driven in turn, A B A B …, for ``--rounds`` rounds, with quality control off and, with
    ``--checks``, on; prints each arm's runs and the ratios of their medians."""
    arms = {"this code": args.url, "baseline": args.baseline_url}
    projects = {"quality control off": setup["slug"]}
    if args.checks:
        projects["quality control on"] = setup["checks_slug"]
    runs: dict[tuple[str, str], list[dict]] = {(arm, p): [] for arm in arms for p in projects}
    for n in range(args.rounds):
        for label, slug in projects.items():
            for arm, url in arms.items():
                print(f"round {n + 1}, {label}, {arm}:")
                runs[arm, label].append(drive(Annotator, Server(f"{arm} ({url})", url, args.database_url, OURS_STORED, slug,
                                                                args.redis_url), tokens, args, args.combined))
    print(f"\n{args.annotators} annotators, {args.seconds:g} s per run, think {args.think:g} s, {args.rounds} rounds; "
          "median of the runs (each run's figure in brackets)")
    for label in projects:
        for arm in arms:
            got = runs[arm, label]
            cpu = [1000 * r["cpu"] for r in got]
            p95 = [1000 * r["submit_p95"] for r in got]
            print(f"  {label:<20} {arm:<10} server CPU per item {statistics.median(cpu):6.2f} ms "
                  f"[{', '.join(f'{c:.2f}' for c in cpu)}]; submit p95 {statistics.median(p95):6.1f} ms "
                  f"[{', '.join(f'{p:.1f}' for p in p95)}]; {statistics.median(r['rate'] for r in got):.1f} items/s")
        ours = statistics.median(r["cpu"] for r in runs["this code", label])
        theirs = statistics.median(r["cpu"] for r in runs["baseline", label])
        print(f"  {label:<20} this code's CPU per item is {ours / theirs:.2f}× the baseline's ({100 * (ours / theirs - 1):+.0f}%)")


def check(args) -> None:
    _django()
    failed = [slug for slug in (SLUG, CHECKS_SLUG) if not _invariants_hold(slug)]
    if failed:
        raise SystemExit(1)


def _invariants_hold(slug: str) -> bool:
    """Print the invariants of one load project; whether they all hold."""
    from django.db.models import Count, F, Q

    from annotation.models import Annotation, Assignment, Item

    slot = Assignment.SLOT_STATUSES
    items = Item.objects.filter(project__slug=slug)
    mine = Assignment.objects.filter(project__slug=slug)
    problems = {
        "items over-filled": items.filter(n_active__gt=F("redundancy")).count(),
        "slot counts off": items.annotate(held=Count("assignments", filter=Q(assignments__status__in=slot)))
        .exclude(held=F("n_active")).count(),
        "workers twice on an item": mine.values("item", "worker").annotate(n=Count("id")).filter(n__gt=1).count(),
        "workers with two open assignments": mine.filter(status="assigned").values("worker")
        .annotate(n=Count("id")).filter(n__gt=1).count(),
        "submitted without an annotation": mine.filter(status__in=Assignment.COUNTED_STATUSES,
                                                       annotation__isnull=True).count(),
    }
    answers = Annotation.objects.filter(assignment__project__slug=slug).count()
    print(f"{slug}: {answers} annotations; " + "; ".join(f"{k}: {v}" for k, v in problems.items()))
    return not any(problems.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--annotators", type=int, default=50)
    p.add_argument("--items", type=int, default=4000)
    p.add_argument("--redundancy", type=int, default=5)
    r = sub.add_parser("run")
    r.add_argument("--url", default="http://127.0.0.1:8000")
    r.add_argument("--annotators", type=int, default=50)
    r.add_argument("--seconds", type=float, default=30)
    r.add_argument("--combined", action="store_true",
                   help="one request per item: each submit asks for the next assignment (?next=1)")
    r.add_argument("--database-url", default=os.environ.get("DATABASE_URL", ""),
                   help="the server's database (default $DATABASE_URL; a SQLite file as sqlite:///PATH): "
                        "what it stored is counted there, and a PostgreSQL server's CPU is counted with the web's")
    r.add_argument("--redis-url", default=os.environ.get("REDIS_URL", ""),
                   help="the server's Redis (default $REDIS_URL), whose CPU is counted with the server's")
    r.add_argument("--warmup", type=float, default=2.0, help="seconds of the same load before each measured run")
    r.add_argument("--checks", action="store_true",
                   help="then drive the project with quality control on, and print what the checks cost per item")
    r.add_argument("--think", type=float, default=0.0,
                   help="mean seconds an annotator spends on an item before answering (0: none)")
    r.add_argument("--baseline-url", metavar="URL",
                   help="a second server on the same database running other code (e.g. a git worktree of an "
                        "earlier commit): drive both in turn and print the ratios")
    r.add_argument("--rounds", type=int, default=3, help="with --baseline-url: runs of each arm, interleaved")
    r.add_argument("--label-studio", metavar="URL", help="then drive Label Studio at URL the same way")
    r.add_argument("--label-studio-database-url", metavar="URL", help="Label Studio's PostgreSQL database")
    sub.add_parser("check")
    lp = sub.add_parser("prepare-label-studio")
    lp.add_argument("--annotators", type=int, default=50)
    lp.add_argument("--items", type=int, default=4000)
    lp.add_argument("--redundancy", type=int, default=5)
    lc = sub.add_parser("check-label-studio")
    lc.add_argument("--redundancy", type=int, default=5)
    args = parser.parse_args()
    {"prepare": prepare, "run": run, "check": check, "prepare-label-studio": load_peer.prepare_label_studio,
     "check-label-studio": load_peer.check_label_studio}[args.step](args)


if __name__ == "__main__":
    main()
