"""The embedded mode's broker and cache: folders on disk, so that `make run` needs no server."""

from __future__ import annotations

from pathlib import Path


def embedded_job_settings(var_dir: Path) -> dict:
    """Broker and cache settings of the embedded mode, rooted at ``var_dir`` (also used by the
    test suite to give each test session its own queue)."""
    queue, processed = var_dir / "broker" / "queue", var_dir / "broker" / "processed"
    for folder in (queue, processed, var_dir / "cache"):
        folder.mkdir(parents=True, exist_ok=True)
    return {
        "CELERY_BROKER_TRANSPORT_OPTIONS": {
            "data_folder_in": str(queue), "data_folder_out": str(queue),
            "processed_folder": str(processed), "control_folder": str(var_dir / "broker"),
        },
        # One SQLite file apart from the database (an import holding the database's write lock
        # must not stall throttled requests or progress reports), which drops expired entries as
        # it writes: a write costs the same however long the platform has run (runtime/sqlite_cache.py).
        "CACHES": {"default": {
            "BACKEND": "runtime.sqlite_cache.SQLiteCache",
            "LOCATION": str(var_dir / "cache"),
            # Seconds a write waits for another process's (the web process and the job worker
            # write at once).
            "OPTIONS": {"BUSY_TIMEOUT": 5},
        }},
    }
