"""A gunicorn server on the test database, for probes that need real processes and sockets."""

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
def gunicorn(env: dict[str, str], log: Path, *, workers: int = 1, threads: int = 8) -> Iterator[str]:
    """Serve the project with gunicorn on a free port; yields its URL. ``env`` names the
    database and the cache (the ``worker_processes`` fixture's environment does)."""
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "config.wsgi", "-b", f"127.0.0.1:{port}", "-w", str(workers),
               "--threads", str(threads), "--worker-class", "gthread", "--timeout", "60"]
    with log.open("w") as out:
        proc = subprocess.Popen(command, cwd=ROOT, env={**env, "ARGCROWD_TEST_RUN": "1"}, stdout=out,
                                stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            assert proc.poll() is None, f"gunicorn exited; see {log}"
            try:
                requests.get(url + "/accounts/login/", timeout=10)
                break
            except requests.RequestException:
                assert time.monotonic() < deadline, f"gunicorn did not answer within 60 s; see {log}"
                time.sleep(0.2)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
