"""Run one bonus pay job in this process and die by SIGKILL at a chosen point, as a worker
killed mid-payment would: ``python -m tests.support.bonus_pay_crash JOB_ID WHERE``.

WHERE is ``after_batch`` (the bulk payment's id committed, the pay call not sent),
``before_pay`` (paying committed, the pay call not sent) or ``after_pay`` (the pay call went
through, its outcome not recorded)."""

from __future__ import annotations

import os
import signal
import sys


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def arm(where: str) -> None:
    """Make this process die at ``where`` the next time a payment gets there."""
    from recruiting.services.bonus_payments import steps

    real_pay = steps.bulk_bonus_pay
    if where == "after_batch":
        steps.payment_send = lambda **kwargs: die()  # type: ignore[assignment]
    elif where == "before_pay":
        steps.bulk_bonus_pay = lambda **kwargs: die()  # type: ignore[assignment]
    elif where == "after_pay":
        def pay_then_die(**kwargs) -> None:
            real_pay(**kwargs)
            die()

        steps.bulk_bonus_pay = pay_then_die  # type: ignore[assignment]
    else:
        raise SystemExit(f"unknown point {where!r}")


def main(job_id: int, where: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from recruiting.services.bonus_payments.payments import bonus_pay_job_execute

    arm(where)
    bonus_pay_job_execute(job_id=job_id)
    raise SystemExit("the job finished without reaching the point to die at")


if __name__ == "__main__":
    main(int(sys.argv[1]), sys.argv[2])
