from collections import defaultdict

from django.db import migrations, models
from django.db.models import Count
from django.utils import timezone

COUNTED = ("submitted", "approved")


def blocked_answers_leave(apps, schema_editor):
    """The new option is on: the answers of workers already blocked in a project leave its data
    now, as a block from now on does, and each item they answered is opened for one more answer
    (``annotation.services.blocked_answers``); one audit entry per project says how many."""
    WorkerStanding = apps.get_model("annotation", "WorkerStanding")
    Assignment = apps.get_model("annotation", "Assignment")
    Item = apps.get_model("annotation", "Item")
    Project = apps.get_model("annotation", "Project")
    AuditEntry = apps.get_model("annotation", "AuditEntry")
    blocked: dict[int, list[int]] = defaultdict(list)
    for project_id, worker_id in WorkerStanding.objects.filter(state="blocked").values_list("project_id", "worker_id"):
        blocked[project_id].append(worker_id)
    for project_id, workers in blocked.items():
        project = Project.objects.get(pk=project_id)
        answers = Assignment.objects.filter(project_id=project_id, worker_id__in=workers, purpose="task",
                                            status__in=COUNTED)
        held = dict(answers.filter(item__kind="real").values("item_id").annotate(n=Count("pk")).order_by()
                    .values_list("item_id", "n"))
        changed = 0
        for pk, n_active, redundancy in Item.objects.filter(pk__in=list(held)).values_list("pk", "n_active",
                                                                                            "redundancy"):
            target = max(project.redundancy + held[pk], n_active)
            if target != redundancy:
                Item.objects.filter(pk=pk).update(redundancy=target)
                changed += 1
        AuditEntry.objects.create(
            at=timezone.now(), actor=None, project=project, action="answers_excluded",
            target=f"{len(workers)} blocked worker{'s' if len(workers) != 1 else ''}",
            details={"workers": len(workers), "answers": answers.exclude(item__kind="withdrawn").count(),
                     "items_changed": changed,
                     "reason": "blocked workers' answers leave the data (the new project option, on by default)"})


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0021_training_feedback'),
    ]

    operations = [
        migrations.AddField(
            model_name='qualitypolicy',
            name='review_pauses_work',
            field=models.BooleanField(default=True, verbose_name='review pauses work', help_text='A worker sent to review gets no new items until staff decide (the item on their screen may be finished).'),
        ),
        migrations.AddField(
            model_name='qualitypolicy',
            name='blocked_answers_excluded',
            field=models.BooleanField(default=True, verbose_name="blocked workers' answers leave the data", help_text='A worker blocked in the project has their answers left out of exports, agreement, MACE and the queues at once (back on unblock); their items are opened for one more answer each.'),
        ),
        migrations.RunPython(blocked_answers_leave, migrations.RunPython.noop),
    ]
