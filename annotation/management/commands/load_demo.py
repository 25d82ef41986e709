"""A demo that runs on a fresh machine: accounts for each role and, for every task type, the
demo projects its module provides (``TaskType.demo``).

Idempotent: running it again changes nothing that is already there (passwords of the demo
accounts are reset to the printed ones).
"""

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from annotation.models import WorkerProfile
from annotation.services.accounts import role_set, user_create
from annotation.task_types import task_types
from annotation.task_types.base import DemoContext

ACCOUNTS = [
    ("admin", "admin", WorkerProfile.Role.ADMIN),
    ("researcher", "researcher", WorkerProfile.Role.RESEARCHER),
    ("annotator1", "annotator1", WorkerProfile.Role.ANNOTATOR),
    ("annotator2", "annotator2", WorkerProfile.Role.ANNOTATOR),
    ("annotator3", "annotator3", WorkerProfile.Role.ANNOTATOR),
]


class Command(BaseCommand):
    help = "Create demo accounts and the demo projects of every task type (from ../shared/data where present)."

    def add_arguments(self, parser):
        parser.add_argument("--data", type=Path, default=settings.SHARED_DATA_DIR,
                            help="the shared data folder (ukpconvarg1/, ibm_recorded_debating_v4/ …)")

    @transaction.atomic
    def handle(self, *args, data: Path, **options):
        User = get_user_model()
        annotators = []
        for username, password, role in ACCOUNTS:
            user = User.objects.filter(username=username).first() or user_create(username=username, role=role, via="load_demo")
            user.set_password(password)
            if role == WorkerProfile.Role.ADMIN:
                user.is_superuser = True
            user.save()
            role_set(user=user, role=role)
            if role == WorkerProfile.Role.ANNOTATOR:
                annotators.append(user)
        ctx = DemoContext(data_dir=data, owner=User.objects.get(username="admin"), annotators=annotators,
                          log=self.stdout.write)
        for task in task_types():
            task.demo(ctx)
        self.stdout.write("Logins (user / password):")
        for username, password, role in ACCOUNTS:
            self.stdout.write(f"  {role:<11} {username} / {password}")
