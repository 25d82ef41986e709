# The corpus tables take the pairwise app's names, and the content types of the two models
# (which permissions and the admin's history point to) follow them, so that the role groups
# keep their rights on topics and arguments and past admin actions stay linked.

from django.db import migrations

MODELS = ('topic', 'argument')


def move_content_types(apps, schema_editor, *, source, target):
    content_type = apps.get_model('contenttypes', 'ContentType')
    for model in MODELS:
        # A database migrated back and forth may already have the target's row (created after
        # a migration); the source's row is then left as it is.
        if not content_type.objects.filter(app_label=target, model=model).exists():
            content_type.objects.filter(app_label=source, model=model).update(app_label=target)


def forwards(apps, schema_editor):
    move_content_types(apps, schema_editor, source='annotation', target='pairwise')


def backwards(apps, schema_editor):
    move_content_types(apps, schema_editor, source='pairwise', target='annotation')


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0010_corpus_moves_to_pairwise'),
        ('contenttypes', '0002_remove_content_type_name'),
        ('pairwise', '0001_corpus_from_annotation'),
    ]

    operations = [
        migrations.AlterModelTable(name='topic', table=None),
        migrations.AlterModelTable(name='argument', table=None),
        migrations.RunPython(forwards, backwards),
    ]
