"""gunicorn servers on the test database, for probes that need real processes and sockets."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]
# What the probes that share servers need of them: limits low enough to reach and high enough
# not to get in each other's way (a lockout after 4 failures per account, no per-address login
# or per-user request throttle), and session cookies over plain http.
SHARED_SETTINGS = {"LOGIN_FAILURE_LIMIT": "4", "THROTTLE_LOGIN": "100000/min", "THROTTLE_USER": "100000/min",
                   "DJANGO_SECURE_COOKIES": "0"}
_shared: list[str] = []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gunicorns(env: dict[str, str], log_dir: Path, *, count: int, workers: int,
                    threads: int) -> tuple[list[subprocess.Popen], list[str]]:
    """``count`` gunicorn servers of the project, started together on free ports, once they
    answer; their processes and URLs."""
    procs, urls, logs = [], [], []
    for _ in range(count):
        port = free_port()
        log = log_dir / f"gunicorn-{port}.log"
        command = [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}", "-w", str(workers),
                   "--threads", str(threads), "--worker-class", "gthread", "--timeout", "60"]
        with log.open("w") as out:
            procs.append(subprocess.Popen(command, cwd=ROOT, env={**env, "ARGCROWD_TEST_RUN": "1"}, stdout=out,
                                          stderr=subprocess.STDOUT))
        urls.append(f"http://127.0.0.1:{port}")
        logs.append(log)
    deadline = time.monotonic() + 60
    for proc, url, log in zip(procs, urls, logs, strict=True):
        while True:
            assert proc.poll() is None, f"gunicorn exited; see {log}"
            try:
                requests.get(url + "/accounts/login/", timeout=10)
                break
            except requests.RequestException:
                assert time.monotonic() < deadline, f"gunicorn did not answer within 60 s; see {log}"
                time.sleep(0.2)
    return procs, urls


def shared_gunicorns(worker_processes) -> list[str]:
    """Two gunicorn servers (2 processes of 8 threads each) on the test database and cache,
    started once per test session for the probes that need them. They are stopped with the
    session's job workers (``worker_processes``), before the test database goes."""
    if not _shared:
        procs, urls = start_gunicorns({**worker_processes.env, **SHARED_SETTINGS}, worker_processes.log_dir,
                                      count=2, workers=2, threads=8)
        worker_processes.started.extend(procs)
        _shared.extend(urls)
    return list(_shared)
