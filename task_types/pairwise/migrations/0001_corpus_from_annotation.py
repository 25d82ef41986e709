# The argument corpus (topics and arguments) moves from the annotation app, which no other task
# type needs it in, to the pairwise app: this migration only tells Django's model state that
# the pairwise app now has the two models, on the tables that hold the rows today. The
# annotation app then forgets them (annotation 0010), and 0002 here renames the tables.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('annotation', '0009_media_duration_uses_refusals'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name='Topic',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('external_id', models.CharField(max_length=200, unique=True)),
                        ('prompt', models.CharField(max_length=500)),
                        ('stance', models.CharField(blank=True, max_length=500)),
                    ],
                    options={
                        'ordering': ['external_id'],
                        'db_table': 'annotation_topic',
                    },
                ),
                migrations.CreateModel(
                    name='Argument',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('external_id', models.CharField(max_length=200, unique=True)),
                        ('text', models.TextField()),
                        ('author', models.CharField(blank=True, max_length=200)),
                        ('topic', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='arguments', to='pairwise.topic')),
                    ],
                    options={
                        'ordering': ['topic_id', 'external_id'],
                        'db_table': 'annotation_argument',
                    },
                ),
            ],
            database_operations=[],
        ),
    ]
