"""Oversized anonymous bodies on a live gunicorn server: six forged 39.5 MB webhook deliveries at
once are each answered 413 as soon as their headers arrive, and meanwhile a signed delivery and a
logged-in request are answered promptly."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest
import requests
from rest_framework.authtoken.models import Token

from recruiting.services.prolific.webhook import webhook_signature
from tests.factories import UserFactory
from tests.support.probe_server import SHARED_SETTINGS, start_gunicorns

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]
SECRET = "whsec-probe"
FORGED_BYTES = int(39.5 * 1024 * 1024)
CHUNK = b"[" * (256 * 1024)


def forged_delivery(url: str, answers: list, started: threading.Event) -> None:
    """A forged delivery that declares 39.5 MB and sends it; records its status and how long
    the server took to answer after the headers."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:
        conn.sendall((f"POST /api/prolific/webhook/ HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                      f"Content-Length: {FORGED_BYTES}\r\nX-Prolific-Request-Timestamp: {int(time.time())}\r\n"
                      "X-Prolific-Request-Signature: Zm9yZ2Vk\r\n\r\n").encode())
        began = time.monotonic()
        started.set()
        sent = 0
        try:
            conn.sendall(CHUNK)
            sent += len(CHUNK)
        except OSError:
            pass
        status = conn.recv(64).split(b" ")[1]
        answers.append((int(status), time.monotonic() - began))
        # The rest of the body, as a client that does not read the answer first would send it.
        try:
            while sent < FORGED_BYTES:
                conn.sendall(CHUNK)
                sent += len(CHUNK)
        except OSError:
            pass


def test_forged_oversized_deliveries_do_not_hold_signed_or_logged_in_work(worker_processes):
    user = UserFactory(role="researcher")
    token = Token.objects.create(user=user)
    env = {**worker_processes.env, **SHARED_SETTINGS, "PROLIFIC_WEBHOOK_SECRET": SECRET, "THROTTLE_ANON": "10000/min"}
    procs, (url,) = start_gunicorns(env, worker_processes.log_dir, count=1, workers=2, threads=2)
    try:
        answers: list[tuple[int, float]] = []
        started = [threading.Event() for _ in range(6)]
        threads = [threading.Thread(target=forged_delivery, args=(url, answers, s)) for s in started]
        for thread in threads:
            thread.start()
        for s in started:
            assert s.wait(30)
        body = json.dumps({"event_type": "submission.status.change", "resource_id": "not-known"}).encode()
        stamp = str(int(time.time()))
        began = time.monotonic()
        signed = requests.post(f"{url}/api/prolific/webhook/", data=body, timeout=30, headers={
            "Content-Type": "application/json", "X-Prolific-Request-Timestamp": stamp,
            "X-Prolific-Request-Signature": webhook_signature(secret=SECRET, timestamp=stamp, body=body)})
        signed_seconds = time.monotonic() - began
        began = time.monotonic()
        logged_in = requests.get(f"{url}/api/projects/", timeout=30, headers={"Authorization": f"Token {token.key}"})
        logged_in_seconds = time.monotonic() - began
        for thread in threads:
            thread.join(60)
        assert signed.status_code == 200 and "not of a linked study" in signed.json()["detail"], signed.text
        assert logged_in.status_code == 200
        assert signed_seconds < 3 and logged_in_seconds < 3, (signed_seconds, logged_in_seconds)
        assert sorted(status for status, _ in answers) == [413] * 6, answers
        assert max(seconds for _, seconds in answers) < 5, answers
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(timeout=20)
