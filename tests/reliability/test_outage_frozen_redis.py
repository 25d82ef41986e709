"""A Redis that accepts connections but never answers (frozen, swapping, its host overloaded):
the settings' timeouts bound what a request waits for it. The cache falls back within its
socket timeout, the health probe's broker check within a second, and queueing a job fails
within the broker's socket timeout (the request then answers 503) instead of holding a web
worker until gunicorn kills it. The Redis is a redis-server of the test's own, stopped with
SIGSTOP; the settings are a deployment's (REDIS_URL set), read in a process of their own."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from tests.reliability.outage_servers import require_redis_server
from tests.support.runtime import ROOT

PROBE = """
import json, time
import django
django.setup()
from runtime.health import broker_state, cache_state
from jobs.queue import task_send
out = {}
t = time.monotonic(); out["cache"] = cache_state(); out["cache_s"] = time.monotonic() - t
t = time.monotonic(); out["broker"] = broker_state(); out["broker_s"] = time.monotonic() - t
t = time.monotonic()
try:
    task_send("annotation.import", 1)
    out["send"] = "sent"
except Exception as exc:
    out["send"] = type(exc).__name__
out["send_s"] = time.monotonic() - t
print(json.dumps(out))
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def frozen_redis(tmp_path):
    require_redis_server()
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(tmp_path)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "redis-server did not start"
                time.sleep(0.05)
        os.kill(proc.pid, signal.SIGSTOP)  # the kernel still accepts connections; nothing answers
        yield port
    finally:
        os.kill(proc.pid, signal.SIGCONT)
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.integration
def test_a_frozen_redis_holds_no_request_past_the_timeouts(frozen_redis, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SQLITE_PATH")}
    env.update(REDIS_URL=f"redis://127.0.0.1:{frozen_redis}/0", DJANGO_SETTINGS_MODULE="config.settings",
               DJANGO_DEBUG="1", SQLITE_PATH=str(tmp_path / "unused.sqlite3"), ARGCROWD_VAR_DIR=str(tmp_path / "var"))
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=90)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["cache"]["ok"] is False and found["cache_s"] < 4, found
    assert found["broker"] == {"ok": False, "error": "OperationalError"} and found["broker_s"] < 3, found
    # Refused, not sent: job_enqueue turns this into ServiceUnavailable (503) and fails the job.
    assert found["send"] != "sent" and found["send_s"] < 10, found
