"""Quality control's models, moved from the engine app (``annotation.migrations.0027``) with
their tables as they were: no table is created or changed."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

MOVED = ("goldanswer", "qualitypolicy", "workerstanding", "traininground", "checkresult", "qualityrule",
         "ruledecision", "rulestate", "adjudication", "itemflag")


def content_types_move(apps, schema_editor, *, source="annotation", target="quality"):
    """Content types (and the permissions on them) follow the models, so that admin history and
    granted permissions keep pointing at the same records."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MOVED:
        if ContentType.objects.filter(app_label=target, model=model).exists():
            continue  # made under the new name already (a database migrated before the move had none)
        ContentType.objects.filter(app_label=source, model=model).update(app_label=target)


def content_types_back(apps, schema_editor):
    content_types_move(apps, schema_editor, source="quality", target="annotation")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ("contenttypes", "0002_remove_content_type_name"),
        ("annotation", "0027_quality_models_to_quality_app"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The tables stay as they are: only Django's record of which app owns them changes.
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name='Adjudication',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('answer', models.JSONField(help_text="The decided answer, in the task type's answer fields.")),
                        ('why', models.TextField(help_text="The adjudicator's reason.")),
                        ('contested', models.JSONField(blank=True, default=list, help_text='Why the item was in the queue.')),
                        ('decided_at', models.DateTimeField()),
                        ('decided_by', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('item', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='adjudication', to='annotation.item')),
                        ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='adjudications', to='annotation.project')),
                    ],
                    options={
                        'db_table': 'annotation_adjudication',
                    },
                ),
                migrations.CreateModel(
                    name='GoldAnswer',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('answer', models.JSONField(help_text="The expected answer, in the task type's answer fields.")),
                        ('accept', models.JSONField(blank=True, default=list, help_text='Other answers scored as right.')),
                        ('explanation', models.TextField(blank=True, help_text='Shown to the worker with the feedback.')),
                        ('source', models.CharField(choices=[('imported', 'Imported'), ('promoted', 'Promoted from unanimous answers')], default='imported', max_length=10)),
                        ('evidence', models.JSONField(blank=True, default=dict)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('item', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='gold_answer', to='annotation.item')),
                    ],
                    options={
                        'db_table': 'annotation_goldanswer',
                    },
                ),
                migrations.CreateModel(
                    name='QualityRule',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('gold_accuracy', 'Gold accuracy below a bar'), ('competence', 'MACE competence below a bar'), ('too_fast', 'Too many answers faster than a share of the median time'), ('position_bias', 'Picks the first-shown option more than the drawn order predicts'), ('automation', 'Answers from an automated browser')], max_length=20)),
                        ('action', models.CharField(choices=[('block', 'Block in the project'), ('review', 'Send to review')], default='review', max_length=10)),
                        ('threshold', models.FloatField(help_text='The bar: an accuracy or competence (0 to 1), a share of too-fast answers, or an excess first-shown rate; its meaning per kind is on the Quality control page.')),
                        ('min_answers', models.PositiveIntegerField(default=5, help_text='Answers (or gold answers) before the rule judges.')),
                        ('share_of_median', models.FloatField(default=0.25, help_text="Too fast: an answer below this share of the project's median time.")),
                        ('confidence', models.FloatField(default=0.95, help_text="One minus the rule's error over the whole study: at 0.95 a worker exactly at the bar is decided about in at most 5% of studies.")),
                        ('enabled', models.BooleanField(default=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='quality_rules', to='annotation.project')),
                    ],
                    options={
                        'db_table': 'annotation_qualityrule',
                        'ordering': ['project_id', 'kind', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='RuleDecision',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('gold_accuracy', 'Gold accuracy below a bar'), ('competence', 'MACE competence below a bar'), ('too_fast', 'Too many answers faster than a share of the median time'), ('position_bias', 'Picks the first-shown option more than the drawn order predicts'), ('automation', 'Answers from an automated browser')], max_length=20)),
                        ('action', models.CharField(choices=[('block', 'Block in the project'), ('review', 'Send to review')], max_length=10)),
                        ('evidence', models.JSONField(help_text='The figures the rule decided on (estimate, interval, counts).')),
                        ('trigger', models.CharField(help_text='What made the rule look: a gold answer, an analysis run.', max_length=100)),
                        ('decided_at', models.DateTimeField()),
                        ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='rule_decisions', to='annotation.project')),
                        ('rule', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='decisions', to='quality.qualityrule')),
                        ('worker', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'annotation_ruledecision',
                        'ordering': ['-decided_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='RuleState',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('answers', models.PositiveIntegerField(default=0)),
                        ('hits', models.PositiveIntegerField(default=0)),
                        ('llr', models.FloatField(default=0.0, help_text="The test's log-likelihood ratio over the answers counted.")),
                        ('updated_at', models.DateTimeField()),
                        ('rule', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='states', to='quality.qualityrule')),
                        ('worker', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'annotation_rulestate',
                    },
                ),
                migrations.CreateModel(
                    name='TrainingRound',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('kind', models.CharField(choices=[('qualification', 'Qualification'), ('recalibration', 'Re-calibration')], max_length=14)),
                        ('number', models.PositiveSmallIntegerField(help_text="1 for the worker's first round in the project.")),
                        ('items', models.PositiveSmallIntegerField(help_text='Training items the round holds (k).')),
                        ('pass_mark', models.FloatField()),
                        ('answered', models.PositiveSmallIntegerField(default=0)),
                        ('right', models.PositiveSmallIntegerField(default=0)),
                        ('passed', models.BooleanField(blank=True, help_text='Empty while the round is open.', null=True)),
                        ('started_at', models.DateTimeField()),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('note', models.CharField(blank=True, max_length=500)),
                        ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='training_rounds', to='annotation.project')),
                        ('sent_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('worker', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='training_rounds', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'annotation_traininground',
                        'ordering': ['project_id', 'worker_id', 'number'],
                    },
                ),
                migrations.CreateModel(
                    name='CheckResult',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('purpose', models.CharField(choices=[('task', 'Task'), ('gold', 'Gold question'), ('training', 'Training')], max_length=10)),
                        ('score', models.FloatField(help_text='0 to 1: 1 for exact, the overlap for sets.')),
                        ('right', models.BooleanField()),
                        ('method', models.CharField(help_text='How it was scored, e.g. exact, jaccard, within one.', max_length=40)),
                        ('expected', models.JSONField(help_text='The known answer it was scored against.')),
                        ('scored_at', models.DateTimeField()),
                        ('assignment', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='check_result', to='annotation.assignment')),
                        ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to='annotation.project')),
                        ('worker', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('round', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='results', to='quality.traininground')),
                    ],
                    options={
                        'db_table': 'annotation_checkresult',
                    },
                ),
                migrations.CreateModel(
                    name='WorkerStanding',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('state', models.CharField(choices=[('qualifying', 'Qualifying'), ('active', 'Active'), ('review', 'To review'), ('blocked', 'Blocked'), ('screened_out', 'Screened out')], default='active', max_length=12)),
                        ('reason', models.CharField(blank=True, max_length=500)),
                        ('changed_at', models.DateTimeField(blank=True, null=True)),
                        ('gold_answered', models.PositiveIntegerField(default=0)),
                        ('gold_right', models.PositiveIntegerField(default=0)),
                        ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='standings', to='annotation.project')),
                        ('worker', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='standings', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'annotation_workerstanding',
                    },
                ),
                migrations.CreateModel(
                    name='ItemFlag',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('problem', models.CharField(choices=[('media', 'The audio does not play'), ('text', 'The text is garbled or missing'), ('options', 'No option fits'), ('other', 'Something else')], max_length=10)),
                        ('reason', models.CharField(max_length=500)),
                        ('created_at', models.DateTimeField()),
                        ('resolved_at', models.DateTimeField(blank=True, null=True)),
                        ('resolution', models.CharField(blank=True, help_text='withdrawn or dismissed.', max_length=20)),
                        ('assignment', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='flag', to='annotation.assignment')),
                        ('item', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='flags', to='annotation.item')),
                        ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='item_flags', to='annotation.project')),
                        ('worker', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='+', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'annotation_itemflag',
                        'ordering': ['-created_at', '-id'],
                        'indexes': [models.Index(fields=['project', 'resolved_at'], name='itemflag_project_open')],
                    },
                ),
                migrations.CreateModel(
                    name='QualityPolicy',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('gold_rate', models.FloatField(default=0.0, help_text='Share of the items handed out that are gold questions (0 to 0.5); 0: none.', validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(0.5)])),
                        ('gold_feedback', models.BooleanField(default=False, help_text='After a gold question, show the worker the expected answer and its explanation.')),
                        ('training_feedback', models.CharField(choices=[('after_each', 'After each item: right or not, the expected answer and why'), ('right_wrong', 'After each item: only whether it was right'), ('after_round', 'After the round: which items were right, without the expected answers')], default='right_wrong', help_text='What a worker is told about their answers in a training round (qualification or re-calibration).', max_length=12)),
                        ('set_overlap', models.CharField(choices=[('jaccard', 'Jaccard: shared options / options in either'), ('masi', 'MASI: Jaccard weighted by how the sets relate')], default='jaccard', help_text='How a set-valued answer is compared with the gold set.', max_length=10)),
                        ('set_pass', models.FloatField(default=0.5, help_text='Overlap (0 to 1) from which a set-valued answer is right.', validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(1)])),
                        ('rubric', models.CharField(choices=[('exact', 'Exact score'), ('within_one', 'Within one point')], default='exact', help_text='When a rubric score is right; both are recorded.', max_length=12)),
                        ('qualification_items', models.PositiveSmallIntegerField(default=0, help_text='Training items in the qualification round before real items (k); 0: no qualification.')),
                        ('qualification_pass', models.FloatField(default=0.8, help_text='Share of right answers that passes (0 to 1).', validators=[django.core.validators.MinValueValidator(0), django.core.validators.MaxValueValidator(1)])),
                        ('qualification_attempts', models.PositiveSmallIntegerField(default=2, help_text='Qualification rounds a worker may take.', validators=[django.core.validators.MinValueValidator(1)])),
                        ('screened_out_code', models.CharField(blank=True, help_text='Completion code for marketplace workers who fail the qualification.', max_length=64)),
                        ('screened_out_url', models.CharField(blank=True, help_text="Where marketplace workers who fail the qualification go, a template like the completion URL ({code} is the screened-out code). Empty: the panel's own, if it has one (Prolific's).", max_length=500, verbose_name='screened-out URL')),
                        ('prefer_adjudicated', models.BooleanField(default=False, help_text="Gold exports take an adjudicated item's decision instead of its aggregate.")),
                        ('review_pauses_work', models.BooleanField(default=True, help_text='A worker sent to review gets no new items until staff decide (the item on their screen may be finished).', verbose_name='review pauses work')),
                        ('blocked_answers_excluded', models.BooleanField(default=True, help_text='A worker blocked in the project has their answers left out of exports, agreement, MACE and the queues at once (back on unblock); their items are opened for one more answer each.', verbose_name="blocked workers' answers leave the data")),
                        ('project', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='quality', to='annotation.project')),
                    ],
                    options={
                        'verbose_name_plural': 'quality policies',
                        'db_table': 'annotation_qualitypolicy',
                        'constraints': [models.CheckConstraint(condition=models.Q(('gold_rate__gte', 0), ('gold_rate__lte', 0.5)), name='quality_gold_rate_range'), models.CheckConstraint(condition=models.Q(('set_pass__gte', 0), ('set_pass__lte', 1)), name='quality_set_pass_range'), models.CheckConstraint(condition=models.Q(('qualification_pass__gte', 0), ('qualification_pass__lte', 1)), name='quality_qualification_pass_range'), models.CheckConstraint(condition=models.Q(('qualification_attempts__gte', 1)), name='quality_attempts_min')],
                    },
                ),
                migrations.AddConstraint(
                    model_name='qualityrule',
                    constraint=models.CheckConstraint(condition=models.Q(('confidence__gt', 0.5), ('confidence__lt', 1)), name='rule_confidence_range'),
                ),
                migrations.AddConstraint(
                    model_name='qualityrule',
                    constraint=models.CheckConstraint(condition=models.Q(('share_of_median__gt', 0), ('share_of_median__lte', 1)), name='rule_share_range'),
                ),
                migrations.AddConstraint(
                    model_name='qualityrule',
                    constraint=models.CheckConstraint(condition=models.Q(('min_answers__gte', 1)), name='rule_min_answers'),
                ),
                migrations.AddIndex(
                    model_name='ruledecision',
                    index=models.Index(fields=['project', 'worker', 'decided_at'], name='decision_project_worker'),
                ),
                migrations.AddConstraint(
                    model_name='rulestate',
                    constraint=models.UniqueConstraint(fields=('rule', 'worker'), name='rule_state_rule_worker_unique'),
                ),
                migrations.AddConstraint(
                    model_name='rulestate',
                    constraint=models.CheckConstraint(condition=models.Q(('hits__lte', models.F('answers'))), name='rule_state_counts'),
                ),
                migrations.AddConstraint(
                    model_name='traininground',
                    constraint=models.UniqueConstraint(fields=('project', 'worker', 'number'), name='training_round_number_unique'),
                ),
                migrations.AddConstraint(
                    model_name='traininground',
                    constraint=models.UniqueConstraint(condition=models.Q(('finished_at__isnull', True)), fields=('project', 'worker'), name='training_round_one_open'),
                ),
                migrations.AddConstraint(
                    model_name='traininground',
                    constraint=models.CheckConstraint(condition=models.Q(('right__lte', models.F('answered'))), name='training_round_counts'),
                ),
                migrations.AddConstraint(
                    model_name='traininground',
                    constraint=models.CheckConstraint(condition=models.Q(('items__gte', 1)), name='training_round_items_min'),
                ),
                migrations.AddIndex(
                    model_name='checkresult',
                    index=models.Index(fields=['project', 'worker', 'purpose'], name='check_project_worker'),
                ),
                migrations.AddConstraint(
                    model_name='checkresult',
                    constraint=models.CheckConstraint(condition=models.Q(('score__gte', 0), ('score__lte', 1)), name='check_score_range'),
                ),
                migrations.AddIndex(
                    model_name='workerstanding',
                    index=models.Index(fields=['project', 'state'], name='standing_project_state'),
                ),
                migrations.AddConstraint(
                    model_name='workerstanding',
                    constraint=models.UniqueConstraint(fields=('project', 'worker'), name='standing_project_worker_unique'),
                ),
                migrations.AddConstraint(
                    model_name='workerstanding',
                    constraint=models.CheckConstraint(condition=models.Q(('state__in', ['qualifying', 'active', 'review', 'blocked', 'screened_out'])), name='standing_state_valid'),
                ),
                migrations.AddConstraint(
                    model_name='workerstanding',
                    constraint=models.CheckConstraint(condition=models.Q(('gold_right__lte', models.F('gold_answered'))), name='standing_gold_counts'),
                ),
            ],
        ),
        migrations.RunPython(content_types_move, content_types_back),
    ]
