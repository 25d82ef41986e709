from django.db import migrations, models

# Items written per statement while the groups of existing items are filled in.
BATCH = 2000


def fill_groups(apps, schema_editor):
    """Name the group of every existing item as its task type does today (``TaskType.group_of``),
    so that gold questions already imported are drawn by group from the first request on. A
    project of a type that is no longer installed keeps null groups (gold is then drawn by
    position, as before)."""
    from annotation.task_types import UnknownTaskType, get_task_type
    from annotation.task_types.base import TaskType

    Project = apps.get_model("annotation", "Project")
    Item = apps.get_model("annotation", "Item")
    for project_id, slug in Project.objects.values_list("pk", "task_type").iterator():
        try:
            task = get_task_type(slug)
        except UnknownTaskType:
            continue
        if type(task).group_of is TaskType.group_of:
            continue  # the type names no groups
        rows = Item.objects.filter(project_id=project_id).only("pk", "payload").order_by("pk")
        last = 0
        while True:
            batch = list(rows.filter(pk__gt=last)[:BATCH])
            if not batch:
                break
            for item in batch:
                item.group = task.item_group(item.payload)
            Item.objects.bulk_update(batch, ["group"], batch_size=BATCH)
            last = batch[-1].pk


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0023_audit_actor_name'),
    ]

    operations = [
        migrations.AddField(
            model_name='item',
            name='group',
            field=models.CharField(blank=True, max_length=200, null=True),
        ),
        migrations.AddField(
            model_name='item',
            name='off_group_serves',
            field=models.PositiveIntegerField(default=0),
        ),
        migrations.AddIndex(
            model_name='item',
            index=models.Index(fields=['project', 'kind', 'group', 'position'], name='item_project_kind_group'),
        ),
        migrations.RunPython(fill_groups, migrations.RunPython.noop),
    ]
