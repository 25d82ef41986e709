"""The embedded mode's broker and cache: a folder on disk and the database, so that `make run`
needs no server."""

from __future__ import annotations

from pathlib import Path


def embedded_job_settings(var_dir: Path) -> dict:
    """Broker and cache settings of the embedded mode, rooted at ``var_dir`` (also used by the
    test suite to give each test session its own queue)."""
    queue, processed = var_dir / "broker" / "queue", var_dir / "broker" / "processed"
    for folder in (queue, processed):
        folder.mkdir(parents=True, exist_ok=True)
    return {
        "CELERY_BROKER_TRANSPORT_OPTIONS": {
            "data_folder_in": str(queue), "data_folder_out": str(queue),
            "processed_folder": str(processed), "control_folder": str(var_dir / "broker"),
        },
        # Django's database cache in the platform's own database, which the web server and the
        # job worker already share (runtime/database_cache.py). Expired entries are dropped once
        # it holds MAX_ENTRIES; the table is made by `migrate` (runtime/apps.py).
        "CACHES": {"default": {
            "BACKEND": "runtime.database_cache.DatabaseCache",
            "LOCATION": "argcrowd_cache",
            "OPTIONS": {"MAX_ENTRIES": 20_000},
        }},
    }
