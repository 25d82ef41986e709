# Topics and arguments now belong to the pairwise app (task_types/pairwise/migrations/0001
# takes them over on the same tables): the annotation app forgets them without touching the
# database, so every row stays.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0009_media_duration_uses_refusals'),
        ('pairwise', '0001_corpus_from_annotation'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='Argument'),
                migrations.DeleteModel(name='Topic'),
            ],
            database_operations=[],
        ),
    ]
