"""Benchmark: what annotators and staff are answered while Redis is away, under load.

It starts what it needs around the given database: a Redis of its own on a free port, the load
project (``bench/load.py prepare``), and gunicorn (4 workers) on that Redis and database. Then
``--annotators`` API annotators loop next → submit for ``--seconds``, beside one client asking
for API tokens and one staff client queueing a small item import every second. ``--before``
seconds in, Redis is shut down for ``--outage`` seconds, then started again. It prints the answers
by request kind and status class, during the outage and outside it, and the invariants
(``load.py check``); it exits 1 when any request was answered with a 500 or an acknowledged
answer was not stored.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/argcrowd_outage \\
        .venv/bin/python bench/outage.py --annotators 20 --seconds 40 --before 10 --outage 20

A PostgreSQL outage is not driven here (the machine's PostgreSQL is shared); the tests in
``tests/reliability/`` stop a cluster of their own.
"""

from __future__ import annotations

import argparse
import collections
import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from load import OURS_STORED, stored_count  # noqa: E402
from load_annotators import Annotator  # noqa: E402

PY = sys.executable
TOKENS = Path(tempfile.gettempdir()) / f"argcrowd-outage-tokens-{os.getpid()}.json"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Tally:
    """Answers by (phase, kind, status class), shared by every client thread."""

    def __init__(self, outage_from: float, outage_to: float) -> None:
        self.lock = threading.Lock()
        self.outage_from, self.outage_to = outage_from, outage_to
        self.counts: collections.Counter[tuple[str, str, str]] = collections.Counter()
        self.retry_after_missing = 0

    def add(self, kind: str, status: int | None, headers: http.client.HTTPMessage | None = None) -> None:
        now = time.perf_counter()
        phase = "during" if self.outage_from <= now < self.outage_to else "outside"
        label = "no answer" if status is None else ("500" if status == 500 else f"{status // 100}xx")
        if status == 503:
            label = "503"
            if headers is not None and not headers.get("Retry-After"):
                self.retry_after_missing += 1
        with self.lock:
            self.counts[(phase, kind, label)] += 1


class CountingAnnotator(Annotator):
    tally: Tally

    def request(self, conn, kind, path, body, method="POST"):
        data = json.dumps(body or {}).encode() if method == "POST" else None
        headers = {"Authorization": f"Token {self.token}"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        try:
            conn.request(method, path, body=data, headers=headers)
            response = conn.getresponse()
            payload = response.read()
        except (OSError, http.client.HTTPException):
            self.tally.add(kind, None)
            conn.close()
            time.sleep(0.05)
            return None
        self.tally.add(kind, response.status, response.headers)
        if response.status >= 400:
            time.sleep(0.05)  # as a client that backs off a little on an error
            return None
        return response.status, json.loads(payload)


def side_client(url: str, stop_at: float, tally: Tally, kind: str, make) -> threading.Thread:
    """A client that sends one request a second: ``make()`` gives (method, path, body, headers)."""

    def loop() -> None:
        parsed = urlparse(url)
        while time.perf_counter() < stop_at:
            conn = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
            method, path, body, headers = make()
            try:
                conn.request(method, path, body=body, headers=headers)
                response = conn.getresponse()
                response.read()
                tally.add(kind, response.status, response.headers)
            except (OSError, http.client.HTTPException):
                tally.add(kind, None)
            finally:
                conn.close()
            time.sleep(1.0)

    thread = threading.Thread(target=loop, daemon=True)
    thread.start()
    return thread


def multipart(field: str, filename: str, content: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{filename}\"\r\n"
            f"Content-Type: text/csv\r\n\r\n").encode() + content + f"\r\n--{boundary}--\r\n".encode()
    return body, f"multipart/form-data; boundary={boundary}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--annotators", type=int, default=20)
    parser.add_argument("--items", type=int, default=4000)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--before", type=float, default=10.0, help="seconds of load before Redis stops")
    parser.add_argument("--outage", type=float, default=20.0, help="seconds without Redis")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn workers")
    args = parser.parse_args()
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url:
        raise SystemExit("set DATABASE_URL (a PostgreSQL database of its own; it is filled with the load project)")
    redis_server = shutil.which("redis-server")
    if redis_server is None:
        raise SystemExit("redis-server is not installed")

    work = Path(tempfile.mkdtemp(prefix="argcrowd-outage-"))
    redis_port, web_port = free_port(), free_port()
    redis_cmd = [redis_server, "--port", str(redis_port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--dir", str(work)]
    env = {**os.environ, "DJANGO_SECRET_KEY": "outage-bench-" + uuid.uuid4().hex, "DJANGO_DEBUG": "0",
           "DATABASE_URL": database_url, "REDIS_URL": f"redis://127.0.0.1:{redis_port}/0",
           "DJANGO_ALLOWED_HOSTS": "127.0.0.1,localhost", "BENCH_LOAD_TOKENS": str(TOKENS),
           # The annotators loop as fast as the server answers: the per-user API rate would
           # throttle them; the token client stays under its own rate.
           "THROTTLE_USER": "10000000/min",
           # Every import is queued as a job, so that the staff client measures queueing.
           "IMPORT_INLINE_MAX_BYTES": "0"}
    redis = subprocess.Popen(redis_cmd, stdout=subprocess.DEVNULL)
    web = None
    web_log = (work / "web.log").open("w")
    try:
        subprocess.run([PY, str(ROOT / "manage.py"), "migrate", "--noinput", "-v0"], env=env, check=True, cwd=ROOT)
        subprocess.run([PY, str(ROOT / "bench" / "load.py"), "prepare", "--annotators", str(args.annotators),
                        "--items", str(args.items)], env=env, check=True, cwd=ROOT)
        staff_token = subprocess.run(
            [PY, str(ROOT / "manage.py"), "shell", "-c",
             "from django.contrib.auth import get_user_model;"
             "from rest_framework.authtoken.models import Token;"
             "u, _ = get_user_model().objects.get_or_create(username='outage-staff', defaults={'is_staff': True,"
             " 'is_superuser': True});"
             "u.set_password('outage-staff-password'); u.save();"
             "print(Token.objects.get_or_create(user=u)[0].key)"],
            env=env, check=True, cwd=ROOT, capture_output=True, text=True).stdout.strip().splitlines()[-1]
        web = subprocess.Popen([str(Path(PY).parent / "gunicorn"), "-w", str(args.workers), "-b",
                                f"127.0.0.1:{web_port}", "--timeout", "30", "config.wsgi"],
                               env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=web_log)
        url = f"http://127.0.0.1:{web_port}"
        for _ in range(100):
            try:
                probe = http.client.HTTPConnection("127.0.0.1", web_port, timeout=5)
                probe.request("GET", "/accounts/login/")
                probe.getresponse().read()
                break
            except (OSError, http.client.HTTPException):
                time.sleep(0.2)
        setup = json.loads(TOKENS.read_text())
        start = time.perf_counter()
        stop_at = start + args.seconds
        tally = Tally(start + args.before, start + args.before + args.outage)
        CountingAnnotator.tally = tally
        clients = [CountingAnnotator(url, t, setup["slug"], stop_at, seed=i, combined=False)
                   for i, t in enumerate(setup["tokens"][: args.annotators])]
        for client in clients:
            client.start()
        credentials = json.dumps({"username": "outage-staff", "password": "outage-staff-password"}).encode()
        side = [side_client(url, stop_at, tally, "token", lambda: (
            "POST", "/api/token/", credentials, {"Content-Type": "application/json"}))]

        def import_request():
            key = uuid.uuid4().hex
            rows = ("topic,prompt,stance,arg1_id,arg1_text,arg2_id,arg2_text\n"
                    f"outage,Should the bench pass?,yes,{key}a,A first argument.,{key}b,A second argument.\n")
            body, kind = multipart("file", "items.csv", rows.encode())
            return ("POST", f"/api/projects/{setup['slug']}/items/import/", body,
                    {"Authorization": f"Token {staff_token}", "Content-Type": kind})

        side.append(side_client(url, stop_at, tally, "queue import", import_request))
        time.sleep(args.before)
        redis.terminate()
        redis.wait(10)
        print(f"Redis stopped at {time.perf_counter() - start:.1f} s")
        time.sleep(args.outage)
        redis = subprocess.Popen(redis_cmd, stdout=subprocess.DEVNULL)
        print(f"Redis started again at {time.perf_counter() - start:.1f} s")
        for thread in [*clients, *side]:
            thread.join()
        acknowledged = sum(c.submits for c in clients)
        stored = stored_count(database_url, OURS_STORED, setup["slug"])
        print(f"{args.annotators} annotators, {args.seconds:.0f} s, Redis away {args.outage:.0f} s: "
              f"{acknowledged} answers acknowledged, {stored} stored")
        kinds = sorted({k for _, k, _ in tally.counts})
        labels = sorted({s for _, _, s in tally.counts})
        for phase in ("outside", "during"):
            print(f"  {phase} the outage:")
            for kind in kinds:
                row = ", ".join(f"{label} {tally.counts[(phase, kind, label)]}" for label in labels
                                if tally.counts[(phase, kind, label)])
                print(f"    {kind:<13} {row}")
        if tally.retry_after_missing:
            print(f"  {tally.retry_after_missing} answers of 503 came without Retry-After")
        check = subprocess.run([PY, str(ROOT / "bench" / "load.py"), "check"], env=env, cwd=ROOT)
        errors = sum(n for (_, _, label), n in tally.counts.items() if label == "500")
        tracebacks = (work / "web.log").read_text().count("Traceback")
        print(f"  the server logged {tracebacks} tracebacks")
        if errors or check.returncode or tally.retry_after_missing or stored != acknowledged:
            raise SystemExit(f"refused: {errors} answers of 500, invariants {'hold' if not check.returncode else 'broken'}")
    finally:
        if web is not None:
            web.terminate()
            web.wait(20)
        redis.terminate()
        redis.wait(10)
        TOKENS.unlink(missing_ok=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
