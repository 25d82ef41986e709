"""Run one Prolific sync job in this process and die by SIGKILL once it has applied some of the
study's submissions, as a worker killed mid-sync would: ``python -m
tests.support.prolific_sync_crash JOB_ID AFTER`` (AFTER: how many submissions to apply first)."""

from __future__ import annotations

import os
import signal
import sys


def main(job_id: int, after: int) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from recruiting.services.prolific import sync as prolific_sync

    real_apply = prolific_sync.prolific_submission_apply
    applied = 0

    def apply_then_die(**kwargs):
        nonlocal applied
        if applied == after:
            os.kill(os.getpid(), signal.SIGKILL)
        applied += 1
        return real_apply(**kwargs)

    prolific_sync.prolific_submission_apply = apply_then_die  # type: ignore[assignment]
    prolific_sync.prolific_sync_job_execute(job_id=job_id)
    raise SystemExit("the sync finished without reaching the point to die at")


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]))
