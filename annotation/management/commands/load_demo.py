"""A demo that runs on a fresh machine: accounts for each role and a real pairwise project.

Idempotent: running it again changes nothing that is already there (passwords of the demo
accounts are reset to the printed ones).
"""

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from django.db import transaction

from annotation.accounts import role_set, user_create
from annotation.corpus_services import arguments_import, pairs_generate
from annotation.importers import parse_arguments
from annotation.models import Project, Topic, WorkerProfile

DEMO_TOPICS = ("is-the-school-uniform-a-good-or-bad-idea-_good", "is-the-school-uniform-a-good-or-bad-idea-_bad")
ACCOUNTS = [
    ("admin", "admin", WorkerProfile.Role.ADMIN),
    ("researcher", "researcher", WorkerProfile.Role.RESEARCHER),
    ("annotator1", "annotator1", WorkerProfile.Role.ANNOTATOR),
    ("annotator2", "annotator2", WorkerProfile.Role.ANNOTATOR),
    ("annotator3", "annotator3", WorkerProfile.Role.ANNOTATOR),
]
FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "demo_arguments.tsv"
SLUG = "ukpconvarg-demo"
# What a marketplace worker agrees to before the first item of the demo.
DEMO_CONSENT = (
    "This demo study stores your answers, the time you spend on each item and your marketplace "
    "ids, for research on argument convincingness. It takes about 10 minutes; you may stop at any "
    "time. The arguments come from the UKPConvArg1 corpus (CC BY-SA 4.0)."
)


class Command(BaseCommand):
    help = "Create demo accounts and a pairwise convincingness project from UKPConvArg1 (or a built-in sample)."

    def add_arguments(self, parser):
        parser.add_argument("--data", type=Path, default=settings.SHARED_DATA_DIR / "ukpconvarg1",
                            help="folder with UKPConvArg1's arguments.tsv")
        parser.add_argument("--arguments", type=int, default=8, help="arguments per topic (all their pairs are items)")

    @transaction.atomic
    def handle(self, *args, data: Path, arguments: int, **options):
        source = data / "arguments.tsv"
        if source.is_file():
            topics = DEMO_TOPICS
            origin = f"UKPConvArg1 ({source})"
        else:
            source, topics = FIXTURE, DEMO_TOPICS[:1]
            origin = f"the built-in sample ({FIXTURE.name}); {data} was not found"
        rows = [r for r in parse_arguments(source.read_bytes()) if r.topic in topics]
        arguments_import(rows=rows)

        User = get_user_model()
        annotators = []
        for username, password, role in ACCOUNTS:
            user = User.objects.filter(username=username).first() or user_create(username=username, role=role)
            user.set_password(password)
            if role == WorkerProfile.Role.ADMIN:
                user.is_superuser = True
            user.save()
            role_set(user=user, role=role)
            if role == WorkerProfile.Role.ANNOTATOR:
                annotators.append(user)

        project, created = Project.objects.get_or_create(
            slug=SLUG,
            defaults={
                "name": "Which argument is more convincing? (UKPConvArg demo)",
                "task_type": "pairwise",
                "redundancy": 3,
                "state": Project.State.ACTIVE,
                "join_code": "DEMO-2016",
                "external_entry": True,
                "completion_code": "C1A2B3D4",
                "consent_text": DEMO_CONSENT,
                "created_by": User.objects.get(username="admin"),
            },
        )
        project.members.add(*annotators)
        made = 0
        for topic in Topic.objects.filter(external_id__in=topics):
            result = pairs_generate(project=project, topic=topic, seed=2016, min_words=10, max_words=110,
                                    sample=arguments)
            made += result.imported.created

        self.stdout.write(f"Demo project “{project.name}” ({'created' if created else 'already there'}): "
                          f"{project.items.count()} items from {origin}, {made} new.")
        self.stdout.write("Logins (user / password):")
        for username, password, role in ACCOUNTS:
            self.stdout.write(f"  {role:<11} {username} / {password}")
        self.stdout.write(f"Join code for other annotators: {project.join_code}")
        self.stdout.write(f"Marketplace link: /start/{project.slug}/?PROLIFIC_PID=<worker id>")
