"""What recruiting adds to the pages of the apps below it (``annotation.page_sections``) and to
the worker page's actions (``quality.services.worker_actions``): the project's bonuses and pay
per hour on its overview; on a worker's page, their submission to the project's Prolific study,
their bonuses, and the form that grants one."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import User
from django.urls import reverse

from annotation.models import Project
from annotation.page_sections import OVERVIEW, WORKER_END, WORKER_HEADER, Section, section_register
from annotation.staff_links import staff_links_register
from quality.selectors.worker_page import LIST_LIMIT
from quality.services.worker_actions import (
    ActionDone,
    ActionRefused,
    ExtraAction,
    action_text,
    worker_action_register,
)
from recruiting.models import Bonus, ProlificSubmission
from recruiting.selectors.bonuses import BonusTotal, bonus_totals
from recruiting.selectors.pay_rate import PayRate, project_pay_rate
from recruiting.selectors.prolific import worker_submission
from recruiting.services.bonuses import bonus_grant


@dataclass(frozen=True)
class OverviewPay:
    totals: list[BonusTotal]
    pay_rate: PayRate


def overview_pay(*, project: Project) -> OverviewPay:
    return OverviewPay(totals=bonus_totals(project=project), pay_rate=project_pay_rate(project=project))


def worker_bonuses(*, project: Project, worker: User) -> list[Bonus]:
    """The worker's latest bonuses in the project, newest first (an empty list: none granted)."""
    return list(Bonus.objects.filter(project=project, worker=worker).order_by("-created_at", "-pk")[:LIST_LIMIT])


def bonuses_data(bonuses: list[Bonus]) -> list[dict[str, Any]]:
    return [{"amount": str(b.amount), "currency": b.currency, "reason": b.reason,
             "created_at": b.created_at.isoformat(), "paid_at": b.paid_at.isoformat() if b.paid_at else None}
            for b in bonuses]


def prolific_of(*, project: Project, worker: User) -> ProlificSubmission | None:
    return worker_submission(project=project, worker_id=worker.pk)


def prolific_submission_data(s: ProlificSubmission) -> dict[str, Any]:
    """The worker's submission to the project's Prolific study (the API's ``prolific``)."""
    return {"submission_id": s.submission_id, "status": s.status,
            "started_at": s.started_at.isoformat() if s.started_at else None,
            "completed_at": s.completed_at.isoformat() if s.completed_at else None,
            "freed_at": s.freed_at.isoformat() if s.freed_at else None, "decided_how": s.decided_how}


def bonus_action(*, project: Project, worker: User, actor: User, data: Mapping[str, Any]) -> ActionDone:
    """The worker page's "bonus": grant ``amount`` in ``currency`` (default USD) for ``reason``."""
    reason = action_text(data, "reason", 300)
    try:
        bonus = bonus_grant(project=project, worker=worker, amount=data.get("amount", ""), reason=reason,
                            currency=action_text(data, "currency", 10) or "USD", actor=actor)
    except ValueError as exc:
        text = str(exc)
        field = "reason" if "reason" in text else "currency" if "currency" in text else "amount"
        raise ActionRefused(field, text) from None
    return ActionDone("bonus", f"Granted {bonus.amount} {bonus.currency} to {worker.get_username()}.")


def recruiting_links(project: Project) -> list[tuple[str, str]]:
    """The project's Prolific study page, for its overview."""
    return [(reverse("prolific", kwargs={"slug": project.slug}), "Prolific study")]


def sections_register() -> None:
    """Register recruiting's sections, its overview link and the bonus action (``recruiting.apps``)."""
    staff_links_register(recruiting_links)
    section_register(OVERVIEW, Section("pay", "recruiting/overview_pay.html", overview_pay))
    section_register(WORKER_HEADER, Section("prolific", "recruiting/worker_prolific.html", prolific_of,
                                            data=prolific_submission_data))
    section_register(WORKER_END, Section("bonuses", "recruiting/worker_bonuses.html", worker_bonuses,
                                         data=bonuses_data))
    worker_action_register("bonus", ExtraAction(perm="recruiting.add_bonus", do=bonus_action,
                                                form="recruiting/worker_bonus_form.html"))
