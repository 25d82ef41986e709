"""Loaded by a real Celery worker (``--include tests.support.bonus_pay_worker_kill``): the
worker dies by SIGKILL at ``$BONUS_PAY_KILL_AT`` (see ``bonus_pay_crash``) in the first
payment it runs."""

from __future__ import annotations

import os

from celery.signals import task_prerun

_armed: list[bool] = []


@task_prerun.connect
def _arm(**kwargs) -> None:
    where = os.environ.get("BONUS_PAY_KILL_AT", "")
    if where and not _armed:
        from tests.support.bonus_pay_crash import arm

        arm(where)
        _armed.append(True)
