"""gunicorn servers on the test database, for probes that need real processes and sockets."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def gunicorns(env: dict[str, str], log_dir: Path, *, count: int = 1, workers: int = 1,
              threads: int = 8) -> Iterator[list[str]]:
    """``count`` gunicorn servers of the project, started together on free ports; yields their
    URLs. ``env`` names the database and the cache (the ``worker_processes`` fixture's
    environment does), so that they share both, as web servers of one deployment do."""
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
    try:
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
        yield urls
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
