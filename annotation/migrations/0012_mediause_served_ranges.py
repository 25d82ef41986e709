from django.db import migrations, models


def not_counted_before(apps, schema_editor):
    """Fetches made before the bytes sent were counted: their records say so (NULL), and an
    answer to an assignment open during the upgrade is not refused for bytes nobody counted."""
    apps.get_model("annotation", "MediaUse").objects.update(served=None)


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0011_shown_order'),
    ]

    operations = [
        migrations.AddField(
            model_name='mediause',
            name='served',
            field=models.JSONField(blank=True, default=list, null=True, help_text='The bytes of the file sent for the assignment: sorted, disjoint [start, end) ranges.'),
        ),
        migrations.RunPython(not_counted_before, migrations.RunPython.noop, elidable=True),
    ]
