"""A project linked to a study on the fake Prolific, with Prolific workers owed bonuses."""

from __future__ import annotations

from decimal import Decimal

from annotation.models import WorkerProfile
from recruiting.models import Bonus, ProjectPay, ProlificStudy
from recruiting.services.bonuses import bonus_grant
from tests.factories import ProjectFactory, UserFactory
from tests.support.fake_prolific import FakeProlific
from tests.support.fake_prolific_bonuses import add_submission


def prolific_ledger(fake: FakeProlific, *, amounts=("1.50", "0.25", "2.00"), currency="GBP", study_id=None):
    """(project, bonuses, participant ids): one Prolific worker per amount, each with a
    submission in the project's study and one owed bonus; the project pays 0.20 per item in
    ``currency``."""
    project = ProjectFactory()
    study = ProlificStudy.objects.create(project=project, study_id=study_id or f"study{project.pk}")
    ProjectPay.objects.create(project=project, reward_per_item="0.20", currency=currency)
    bonuses, pids = [], []
    for i, amount in enumerate(amounts):
        worker = UserFactory()
        pid = f"pid{project.pk:03d}{i:05d}"
        WorkerProfile.objects.filter(user=worker).update(source="prolific", external_id=pid)
        worker.refresh_from_db()
        add_submission(fake, study_id=study.study_id, participant=pid)
        bonuses.append(bonus_grant(project=project, worker=worker, amount=Decimal(amount), reason="good work",
                                   currency=currency))
        pids.append(pid)
    return project, bonuses, pids


def states(bonuses) -> list[str]:
    return [Bonus.objects.get(pk=b.pk).payment_state for b in bonuses]
