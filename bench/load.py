"""Benchmark: the annotator's round trip under load, through the public API of a running server.

It starts nothing by itself. Three steps, the first and last with the server's own settings
(the same DATABASE_URL), the middle one only over HTTP:

    # a load project with ITEMS pairwise items (N distinct answers each) and N annotators with tokens
    DJANGO_SECRET_KEY=… DATABASE_URL=… .venv/bin/python bench/load.py prepare --annotators 50 --items 4000
    # the server under test, e.g. DJANGO_SECRET_KEY=… DATABASE_URL=… .venv/bin/gunicorn -w 4 config.wsgi
    .venv/bin/python bench/load.py run --url http://127.0.0.1:8000 --annotators 50 --seconds 30
    # the database invariants after the run
    DJANGO_SECRET_KEY=… DATABASE_URL=… .venv/bin/python bench/load.py check

``run`` gives each simulated annotator a thread with its own keep-alive connection, looping
next → submit (a 60-character reason) as fast as the server answers, or with ``--combined``
one ``submit?next=1`` per item (the answer brings the next assignment), and prints submits per
second, p50/p95/max per request kind, the annotator's wait per item (p95, and the mean beside
annotators / throughput: with no pause between items the two agree, so at 50 annotators a
p95 under 150 ms needs more than 333 submits/s) and the errors. ``check`` prints the invariants: no item
over-filled, slot counts equal to the assignments holding them, no worker twice on an item, at
most one open assignment per worker, one annotation per submitted assignment.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SLUG = "bench-load"
TOKENS = Path(os.environ.get("BENCH_LOAD_TOKENS", "/tmp/argcrowd-load-tokens.json"))
REASON = "A1 names a concrete cost of the policy, A2 repeats the claim."  # 60 characters


def _django():
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def prepare(args) -> None:
    _django()
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from annotation.accounts import role_set
    from annotation.models import Item, Project

    User = get_user_model()
    project, _ = Project.objects.update_or_create(slug=SLUG, defaults={
        "name": "Load benchmark", "task_type": "pairwise", "redundancy": args.redundancy,
        "state": Project.State.ACTIVE, "open_to_all": True, "assignment_order": Project.Order.SPREAD})
    project.items.all().delete()
    Item.objects.bulk_create([
        Item(project=project, external_id=f"load{n}", position=n, redundancy=args.redundancy, payload={
            "topic": "load", "prompt": "Is load testing useful?", "stance": "Yes",
            "arg1": {"id": f"a{n}", "text": f"Argument {n} says load tests find slow paths."},
            "arg2": {"id": f"b{n}", "text": f"Argument {n} says they find lock contention."}})
        for n in range(args.items)], batch_size=2000)
    tokens = []
    for i in range(args.annotators):
        user, created = User.objects.get_or_create(username=f"load{i}")
        if created:
            role_set(user=user, role="annotator")
        tokens.append(Token.objects.get_or_create(user=user)[0].key)
    TOKENS.write_text(json.dumps({"slug": SLUG, "tokens": tokens}))
    print(f"project {SLUG}: {args.items} items × {args.redundancy} answers; {len(tokens)} annotators; tokens in {TOKENS}")


class Annotator(threading.Thread):
    def __init__(self, url: str, token: str, slug: str, stop_at: float, seed: int, combined: bool) -> None:
        super().__init__(daemon=True)
        self.combined = combined
        self.url, self.token, self.slug, self.stop_at = urlparse(url), token, slug, stop_at
        self.rng = random.Random(seed)
        self.times: dict[str, list[float]] = {"next": [], "submit": []}
        self.errors: list[str] = []
        self.submits = 0

    def request(self, conn: http.client.HTTPConnection, kind: str, path: str, body: dict | None) -> dict | None:
        data = json.dumps(body or {}).encode()
        start = time.perf_counter()
        try:
            conn.request("POST", path, body=data, headers={
                "Authorization": f"Token {self.token}", "Content-Type": "application/json"})
            response = conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException) as exc:
            self.errors.append(f"{kind}: {type(exc).__name__}")
            conn.close()
            return None
        self.times[kind].append(time.perf_counter() - start)
        if response.status >= 400:
            self.errors.append(f"{kind}: HTTP {response.status}")
            return None
        return json.loads(payload)

    def run(self) -> None:
        conn = http.client.HTTPConnection(self.url.hostname, self.url.port or 80, timeout=30)
        nxt = None
        while time.perf_counter() < self.stop_at:
            if nxt is None:
                nxt = self.request(conn, "next", f"/api/projects/{self.slug}/assignments/next/", None)
                if nxt is None:
                    continue
            if nxt.get("assignment") is None:
                break  # nothing left for this annotator
            answer = {"label": self.rng.choice(["a1", "a2", "equal"]), "standpoint": "none", "reason": REASON}
            path = f"/api/assignments/{nxt['assignment']['id']}/submit/" + ("?next=1" if self.combined else "")
            done = self.request(conn, "submit", path, answer)
            if done is not None:
                self.submits += 1
            # One request per item: the answer to a submit carries the next assignment.
            nxt = done.get("next") if (self.combined and done is not None) else None
        conn.close()


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def run(args) -> None:
    setup = json.loads(TOKENS.read_text())
    tokens = setup["tokens"][: args.annotators]
    if len(tokens) < args.annotators:
        raise SystemExit(f"only {len(tokens)} annotators prepared; run prepare --annotators {args.annotators}")
    start = time.perf_counter()
    workers = [Annotator(args.url, t, setup["slug"], start + args.seconds, seed=i, combined=args.combined)
               for i, t in enumerate(tokens)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - start
    submits = sum(w.submits for w in workers)
    errors = [e for w in workers for e in w.errors]
    mode = "submit?next=1" if args.combined else "next, then submit"
    print(f"{args.annotators} annotators ({mode}), {elapsed:.1f} s: {submits} submits, {submits / elapsed:.1f} submits/s, "
          f"{len(errors)} errors{(' (' + ', '.join(sorted(set(errors))) + ')') if errors else ''}")
    for kind in ("next", "submit"):
        times = [t for w in workers for t in w.times[kind]]
        print(f"  {kind:<6} {len(times):>7} requests  p50 {1000 * statistics.median(times) if times else float('nan'):6.1f} ms"
              f"  p95 {1000 * percentile(times, 0.95):6.1f} ms  max {1000 * max(times, default=float('nan')):7.1f} ms")
    # The annotator's wait per item: next and submit, or the one submit that brings the next item.
    per_item = ([t for w in workers for t in w.times["submit"]] if args.combined else
                [a + b for w in workers for a, b in zip(w.times["next"], w.times["submit"], strict=False)])
    print(f"  per item p95 {1000 * percentile(per_item, 0.95):.1f} ms")
    if submits:
        # Annotators who never pause keep one request each in flight, so the mean wait per item
        # is annotators / throughput (Little's law), whatever the server does with its time.
        print(f"  mean wait per item {1000 * statistics.mean(per_item):.1f} ms; annotators / throughput = "
              f"{1000 * args.annotators * elapsed / submits:.1f} ms")


def check(args) -> None:
    _django()
    from django.db.models import Count, F, Q

    from annotation.models import Annotation, Assignment, Item

    slot = Assignment.SLOT_STATUSES
    items = Item.objects.filter(project__slug=SLUG)
    problems = {
        "items over-filled": items.filter(n_active__gt=F("redundancy")).count(),
        "slot counts off": items.annotate(held=Count("assignments", filter=Q(assignments__status__in=slot)))
        .exclude(held=F("n_active")).count(),
        "workers twice on an item": Assignment.objects.filter(project__slug=SLUG).values("item", "worker")
        .annotate(n=Count("id")).filter(n__gt=1).count(),
        "workers with two open assignments": Assignment.objects.filter(project__slug=SLUG, status="assigned")
        .values("worker").annotate(n=Count("id")).filter(n__gt=1).count(),
        "submitted without an annotation": Assignment.objects.filter(
            project__slug=SLUG, status__in=Assignment.COUNTED_STATUSES, annotation__isnull=True).count(),
    }
    answers = Annotation.objects.filter(assignment__project__slug=SLUG).count()
    print(f"{answers} annotations; " + "; ".join(f"{k}: {v}" for k, v in problems.items()))
    if any(problems.values()):
        raise SystemExit(1)


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
    sub.add_parser("check")
    args = parser.parse_args()
    {"prepare": prepare, "run": run, "check": check}[args.step](args)


if __name__ == "__main__":
    main()
