"""Holds a job worker inside the transaction that stores a job's outcome, so that a test can
kill it there: the job's own writes are made but not committed. A worker loads it with
``--include tests.support.probe_stall`` and ``PROBE_STALL_DIR`` set to a folder, where it leaves a
file named ``<model>-<pk>`` once it holds; without the variable it changes nothing."""

import os
import time
from pathlib import Path

from jobs import services

STALL_DIR = os.environ.get("PROBE_STALL_DIR", "")
_finish = services.job_finish


def stalled_finish(*, job, **fields):
    if STALL_DIR:
        (Path(STALL_DIR) / f"{job._meta.label_lower}-{job.pk}").write_text("holding")
        time.sleep(600)
    return _finish(job=job, **fields)


services.job_finish = stalled_finish
