"""What tests and the fixtures of the root conftest.py share about the run itself: the checkout's
root, the test database (for child processes) and whether real workers must run."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection

ROOT = Path(__file__).resolve().parents[2]


def is_postgres() -> bool:
    return connection.vendor == "postgresql"


def database_url() -> str:
    """A URL for the test database, for child processes (celery worker, concurrent clients)."""
    s = connection.settings_dict
    if connection.vendor == "postgresql":
        auth = quote(s["USER"] or "postgres")
        if s.get("PASSWORD"):
            auth += ":" + quote(s["PASSWORD"])
        return f"postgres://{auth}@{s['HOST'] or '127.0.0.1'}:{s['PORT'] or 5432}/{s['NAME']}"
    return ""


def _worker_unavailable(message: str) -> None:
    """Skip, or fail where the run must exercise real workers (CI sets REQUIRE_WORKER=1)."""
    if os.environ.get("REQUIRE_WORKER") == "1":
        pytest.fail(message + " (REQUIRE_WORKER=1: the real-worker tests must run)")
    pytest.skip(message)
