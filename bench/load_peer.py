"""The peer of ``bench/load.py``, Label Studio, prepared and checked with its own Python and
settings (``load.py prepare-label-studio`` and ``check-label-studio`` call these): an
organisation, N annotators with API tokens and a project of the load's texts; then its
invariants after a run."""

from __future__ import annotations

import json
import os
from pathlib import Path

PEER_TOKENS = Path(os.environ.get("BENCH_LOAD_PEER_TOKENS", "/tmp/argcrowd-load-label-studio.json"))
PEER_TITLE = "Load benchmark"
PEER_CONFIG = """<View>
  <Text name="arg1" value="$arg1"/>
  <Text name="arg2" value="$arg2"/>
  <Choices name="label" toName="arg1" choice="single" required="true">
    <Choice value="a1"/><Choice value="a2"/><Choice value="equal"/>
  </Choices>
  <TextArea name="reason" toName="arg1" required="true" maxSubmissions="1"/>
</View>"""
STORED = "SELECT count(*) FROM task_completion WHERE project_id = ?"


def prepare_label_studio(args) -> None:
    """With Label Studio's Python and settings: an organisation, N annotators with API tokens, and
    a project of ITEMS tasks of the same texts with N answers each (``maximum_annotations``)."""
    import django

    django.setup()
    from organizations.functions import create_organization
    from organizations.models import Organization
    from projects.models import Project
    from rest_framework.authtoken.models import Token
    from tasks.models import Task
    from users.models import User

    owner = User.objects.filter(email="load-owner@example.org").first() or User.objects.create_superuser(
        email="load-owner@example.org", password="load-owner-pw")
    org = Organization.objects.filter(created_by=owner).first() or create_organization(
        title="Load", created_by=owner, legacy_api_tokens_enabled=True)
    owner.active_organization = org
    owner.save()
    Project.objects.filter(organization=org, title=PEER_TITLE).delete()
    project = Project.objects.create(title=PEER_TITLE, organization=org, created_by=owner, label_config=PEER_CONFIG,
                                     maximum_annotations=args.redundancy, overlap_cohort_percentage=100,
                                     show_skip_button=False)
    Task.objects.bulk_create([
        Task(project=project, overlap=args.redundancy, data={"arg1": f"Argument {n} says load tests find slow paths.",
                                    "arg2": f"Argument {n} says they find lock contention."})
        for n in range(args.items)], batch_size=2000)
    tokens = []
    for i in range(args.annotators):
        email = f"load{i}@example.org"
        user = User.objects.filter(email=email).first() or User.objects.create_user(email=email, password="load-pw")
        org.add_user(user)
        user.active_organization = org
        user.save()
        tokens.append(Token.objects.get_or_create(user=user)[0].key)
    PEER_TOKENS.write_text(json.dumps({"project": project.pk, "tokens": tokens}))
    print(f"Label Studio project {project.pk}: {args.items} tasks × {args.redundancy} answers; "
          f"{len(tokens)} annotators; tokens in {PEER_TOKENS}")


def check_label_studio(args) -> None:
    """With Label Studio's Python and settings: its invariants after a run (none over-filled,
    nobody twice on a task)."""
    import django

    django.setup()
    from django.db.models import Count
    from tasks.models import Annotation, Task

    project = json.loads(PEER_TOKENS.read_text())["project"]
    answers = Annotation.objects.filter(project_id=project)
    over = Task.objects.filter(project_id=project).annotate(n=Count("annotations")).filter(n__gt=args.redundancy)
    twice = answers.values("task", "completed_by").annotate(n=Count("id")).filter(n__gt=1)
    print(f"{answers.count()} annotations; tasks over-filled: {over.count()}; workers twice on a task: {twice.count()}")
    if over.exists() or twice.exists():
        raise SystemExit(1)
