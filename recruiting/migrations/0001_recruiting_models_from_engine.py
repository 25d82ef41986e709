"""Recruiting's models, moved from the engine app (``annotation.migrations.0028``) with their
tables as they were: no table is created or changed."""

import django.core.validators
import django.db.models.deletion
import django.utils.timezone
import uuid
from django.conf import settings
from django.db import migrations, models


MOVED = ("bonus", "bonuspayment", "bonuspayjob", "projectpay", "prolificstudy", "prolificsubmission",
         "prolificsyncjob", "prolificwebhookevent")


def content_types_move(apps, schema_editor, *, source="annotation", target="recruiting"):
    """Content types (and the permissions on them) follow the models, so that admin history and
    granted permissions keep pointing at the same records."""
    ContentType = apps.get_model("contenttypes", "ContentType")
    for model in MOVED:
        if ContentType.objects.filter(app_label=target, model=model).exists():
            continue  # made under the new name already (a database migrated before the move had none)
        ContentType.objects.filter(app_label=source, model=model).update(app_label=target)


def content_types_back(apps, schema_editor):
    content_types_move(apps, schema_editor, source="recruiting", target="annotation")


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('annotation', '0028_recruiting_models_to_recruiting_app'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        # The tables stay as they are: only Django's record of which app owns them changes.
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name='ProlificWebhookEvent',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('event_id', models.CharField(max_length=200, unique=True)),
                        ('event_type', models.CharField(max_length=100)),
                        ('submission_id', models.CharField(blank=True, max_length=100)),
                        ('status', models.CharField(blank=True, max_length=20)),
                        ('sent_at', models.DateTimeField(help_text="Prolific's timestamp of the delivery.")),
                        ('received_at', models.DateTimeField()),
                        ('outcome', models.CharField(blank=True, max_length=300)),
                    ],
                    options={
                        'db_table': 'annotation_prolificwebhookevent',
                        'ordering': ['-received_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='BonusPayment',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('marketplace', models.CharField(default='prolific', max_length=40)),
                        ('study_id', models.CharField(max_length=100)),
                        ('currency', models.CharField(max_length=3)),
                        ('bulk_id', models.CharField(blank=True, max_length=100)),
                        ('state', models.CharField(choices=[('owed', 'Owed'), ('batched', 'Batched'), ('paying', 'Paying'), ('paid', 'Paid'), ('failed', 'Failed'), ('unconfirmed', 'Unconfirmed')], default='owed', max_length=12)),
                        ('csv_bonuses', models.TextField(blank=True)),
                        ('error', models.TextField(blank=True, help_text="The marketplace's message when it refused.")),
                        ('evidence', models.JSONField(blank=True, default=dict, help_text='What the marketplace showed when read back.')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('pay_sent_at', models.DateTimeField(blank=True, help_text='When the pay call was about to be sent.', null=True)),
                        ('settled_at', models.DateTimeField(blank=True, null=True)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='bonus_payments', to='annotation.project')),
                    ],
                    options={
                        'db_table': 'annotation_bonuspayment',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='BonusPayJob',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], default='queued', max_length=10)),
                        ('progress', models.FloatField(default=0.0, help_text='0 to 1.')),
                        ('stage', models.CharField(blank=True, help_text='What the job is doing now.', max_length=200)),
                        ('error', models.TextField(blank=True)),
                        ('attempts', models.PositiveSmallIntegerField(default=0, help_text='Attempts claimed by a worker since it was queued by a person.')),
                        ('queued_at', models.DateTimeField(default=django.utils.timezone.now, help_text='When it was last sent to the job queue.')),
                        ('sends', models.PositiveSmallIntegerField(default=0, help_text='Times the scheduler sent it again, no worker having taken it.')),
                        ('token', models.UUIDField(default=uuid.uuid4, help_text='Identifies the current attempt.')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('heartbeat_at', models.DateTimeField(blank=True, help_text='Last sign of life stored in the database.', null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('kind', models.CharField(choices=[('pay', 'Pay'), ('reconcile', 'Reconcile')], max_length=10)),
                        ('result', models.JSONField(blank=True, null=True)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='bonus_pay_jobs', to='annotation.project')),
                        ('payment', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='jobs', to='recruiting.bonuspayment')),
                    ],
                    options={
                        'db_table': 'annotation_bonuspayjob',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='Bonus',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('amount', models.DecimalField(decimal_places=2, max_digits=10)),
                        ('currency', models.CharField(default='USD', help_text='ISO 4217 code, e.g. USD or GBP.', max_length=3)),
                        ('reason', models.CharField(max_length=300)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('paid_at', models.DateTimeField(blank=True, help_text='When it was paid; empty while owed.', null=True)),
                        ('paid_note', models.CharField(blank=True, help_text="e.g. the marketplace's payment batch.", max_length=300)),
                        ('payment_state', models.CharField(choices=[('owed', 'Owed'), ('batched', 'Batched'), ('paying', 'Paying'), ('paid', 'Paid'), ('failed', 'Failed'), ('unconfirmed', 'Unconfirmed')], default='owed', max_length=12)),
                        ('annotation', models.OneToOneField(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='bonus', to='annotation.annotation')),
                        ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='bonuses', to='annotation.project')),
                        ('worker', models.ForeignKey(on_delete=django.db.models.deletion.PROTECT, related_name='bonuses', to=settings.AUTH_USER_MODEL)),
                        ('payment', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.PROTECT, related_name='bonuses', to='recruiting.bonuspayment')),
                    ],
                    options={
                        'verbose_name_plural': 'bonuses',
                        'db_table': 'annotation_bonus',
                        'ordering': ['project_id', 'created_at', 'id'],
                    },
                ),
                migrations.CreateModel(
                    name='ProjectPay',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('marketplace', models.CharField(default='prolific', help_text='Whose minimum hourly rate applies.', max_length=40)),
                        ('reward_per_item', models.DecimalField(decimal_places=2, help_text='Paid per item answered.', max_digits=8)),
                        ('currency', models.CharField(default='GBP', help_text="ISO 4217 code: the study's currency.", max_length=3)),
                        ('updated_at', models.DateTimeField(auto_now=True)),
                        ('project', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='pay', to='annotation.project')),
                    ],
                    options={
                        'verbose_name': 'project pay',
                        'verbose_name_plural': 'project pay',
                        'db_table': 'annotation_projectpay',
                    },
                ),
                migrations.CreateModel(
                    name='ProlificStudy',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('study_id', models.CharField(help_text="The id in the study's address on Prolific, e.g. 64f1c0ffee0123456789abcd.", max_length=100, validators=[django.core.validators.RegexValidator('^[A-Za-z0-9_-]{1,100}$', 'A study id holds only letters, digits, - and _.')], verbose_name='Prolific study id')),
                        ('poll_seconds', models.PositiveIntegerField(default=60, help_text="How often the platform reads the study's submissions from Prolific (seconds).", validators=[django.core.validators.MinValueValidator(10)])),
                        ('auto_approve', models.BooleanField(default=False, help_text='Approve completed submissions of workers in good standing on their own.')),
                        ('auto_reject', models.BooleanField(default=False, help_text='Reject submissions of workers a quality rule blocked, with its evidence.')),
                        ('last_polled_at', models.DateTimeField(blank=True, null=True)),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('project', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, related_name='prolific_study', to='annotation.project')),
                    ],
                    options={
                        'verbose_name': 'Prolific study',
                        'verbose_name_plural': 'Prolific studies',
                        'db_table': 'annotation_prolificstudy',
                    },
                ),
                migrations.CreateModel(
                    name='ProlificSubmission',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('submission_id', models.CharField(help_text="Prolific's id (SESSION_ID).", max_length=100, unique=True)),
                        ('participant_id', models.CharField(help_text="Prolific's participant id (PROLIFIC_PID).", max_length=100)),
                        ('status', models.CharField(choices=[('RESERVED', 'Reserved'), ('ACTIVE', 'Active'), ('AWAITING REVIEW', 'Awaiting review'), ('APPROVED', 'Approved'), ('PARTIALLY APPROVED', 'Partially approved'), ('REJECTED', 'Rejected'), ('RETURNED', 'Returned'), ('TIMED-OUT', 'Timed out'), ('SCREENED OUT', 'Screened out'), ('UNKNOWN', 'Unknown')], default='ACTIVE', max_length=20)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('completed_at', models.DateTimeField(blank=True, null=True)),
                        ('seen_at', models.DateTimeField(help_text='When Prolific last told the platform of it.')),
                        ('freed_at', models.DateTimeField(blank=True, help_text="When the participant's open assignments went back to the pool.", null=True)),
                        ('freed_assignments', models.PositiveIntegerField(default=0)),
                        ('decided_at', models.DateTimeField(blank=True, null=True)),
                        ('decided_how', models.CharField(blank=True, choices=[('staff', 'By a staff member on the platform'), ('auto', "By the study's automatic rule"), ('prolific', 'On Prolific')], max_length=10)),
                        ('screen_out_sent_at', models.DateTimeField(blank=True, help_text='When the platform asked Prolific to screen it out.', null=True)),
                        ('last_error', models.CharField(blank=True, help_text="Prolific's answer to the last refused call.", max_length=500)),
                        ('decided_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('project', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='prolific_submissions', to='annotation.project')),
                        ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='submissions', to='recruiting.prolificstudy')),
                        ('worker', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='prolific_submissions', to=settings.AUTH_USER_MODEL)),
                    ],
                    options={
                        'db_table': 'annotation_prolificsubmission',
                        'ordering': ['-started_at', '-id'],
                    },
                ),
                migrations.CreateModel(
                    name='ProlificSyncJob',
                    fields=[
                        ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                        ('status', models.CharField(choices=[('queued', 'Queued'), ('running', 'Running'), ('done', 'Done'), ('failed', 'Failed'), ('cancelled', 'Cancelled')], default='queued', max_length=10)),
                        ('progress', models.FloatField(default=0.0, help_text='0 to 1.')),
                        ('stage', models.CharField(blank=True, help_text='What the job is doing now.', max_length=200)),
                        ('error', models.TextField(blank=True)),
                        ('attempts', models.PositiveSmallIntegerField(default=0, help_text='Attempts claimed by a worker since it was queued by a person.')),
                        ('queued_at', models.DateTimeField(default=django.utils.timezone.now, help_text='When it was last sent to the job queue.')),
                        ('sends', models.PositiveSmallIntegerField(default=0, help_text='Times the scheduler sent it again, no worker having taken it.')),
                        ('token', models.UUIDField(default=uuid.uuid4, help_text='Identifies the current attempt.')),
                        ('created_at', models.DateTimeField(auto_now_add=True)),
                        ('started_at', models.DateTimeField(blank=True, null=True)),
                        ('heartbeat_at', models.DateTimeField(blank=True, help_text='Last sign of life stored in the database.', null=True)),
                        ('finished_at', models.DateTimeField(blank=True, null=True)),
                        ('result', models.JSONField(blank=True, null=True)),
                        ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                        ('study', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='sync_jobs', to='recruiting.prolificstudy')),
                    ],
                    options={
                        'db_table': 'annotation_prolificsyncjob',
                        'ordering': ['-created_at', '-id'],
                    },
                ),
                migrations.AddConstraint(
                    model_name='bonuspayment',
                    constraint=models.CheckConstraint(condition=models.Q(('state__in', ['owed', 'batched', 'paying', 'paid', 'failed', 'unconfirmed'])), name='bonuspayment_state_valid'),
                ),
                migrations.AddConstraint(
                    model_name='bonuspayment',
                    constraint=models.UniqueConstraint(condition=models.Q(('bulk_id', ''), _negated=True), fields=('marketplace', 'bulk_id'), name='bonuspayment_bulk_id_unique'),
                ),
                migrations.AddConstraint(
                    model_name='bonuspayment',
                    constraint=models.CheckConstraint(condition=models.Q(('state__in', ['owed', 'failed']), models.Q(('bulk_id', ''), _negated=True), _connector='OR'), name='bonuspayment_bulk_id_when_batched'),
                ),
                migrations.AddConstraint(
                    model_name='bonuspayjob',
                    constraint=models.CheckConstraint(condition=models.Q(('progress__gte', 0), ('progress__lte', 1)), name='bonuspayjob_progress_range'),
                ),
                migrations.AddConstraint(
                    model_name='bonuspayjob',
                    constraint=models.CheckConstraint(condition=models.Q(('status__in', ['queued', 'running', 'done', 'failed', 'cancelled'])), name='bonuspayjob_status_valid'),
                ),
                migrations.AddIndex(
                    model_name='bonus',
                    index=models.Index(fields=['project', 'worker'], name='bonus_project_worker'),
                ),
                migrations.AddConstraint(
                    model_name='bonus',
                    constraint=models.CheckConstraint(condition=models.Q(('amount__gt', 0)), name='bonus_amount_positive'),
                ),
                migrations.AddConstraint(
                    model_name='bonus',
                    constraint=models.CheckConstraint(condition=models.Q(('payment_state__in', ['owed', 'batched', 'paying', 'paid', 'failed', 'unconfirmed'])), name='bonus_payment_state_valid'),
                ),
                migrations.AddConstraint(
                    model_name='bonus',
                    constraint=models.CheckConstraint(condition=models.Q(models.Q(('paid_at__isnull', False), ('payment_state', 'paid')), models.Q(models.Q(('payment_state', 'paid'), _negated=True), ('paid_at__isnull', True)), _connector='OR'), name='bonus_paid_at_iff_paid'),
                ),
                migrations.AddConstraint(
                    model_name='bonus',
                    constraint=models.CheckConstraint(condition=models.Q(models.Q(('payment_state__in', ['batched', 'paying', 'unconfirmed']), _negated=True), ('payment__isnull', False), _connector='OR'), name='bonus_payment_when_in_flight'),
                ),
                migrations.AddConstraint(
                    model_name='projectpay',
                    constraint=models.CheckConstraint(condition=models.Q(('reward_per_item__gt', 0)), name='projectpay_reward_positive'),
                ),
                migrations.AddConstraint(
                    model_name='prolificstudy',
                    constraint=models.UniqueConstraint(fields=('study_id',), name='prolific_study_id_unique'),
                ),
                migrations.AddIndex(
                    model_name='prolificsubmission',
                    index=models.Index(fields=['project', 'worker'], name='prolific_submission_worker'),
                ),
                migrations.AddIndex(
                    model_name='prolificsubmission',
                    index=models.Index(fields=['study', 'status'], name='prolific_submission_status_ix'),
                ),
                migrations.AddConstraint(
                    model_name='prolificsubmission',
                    constraint=models.CheckConstraint(condition=models.Q(('status__in', ['RESERVED', 'ACTIVE', 'AWAITING REVIEW', 'APPROVED', 'PARTIALLY APPROVED', 'REJECTED', 'RETURNED', 'TIMED-OUT', 'SCREENED OUT', 'UNKNOWN'])), name='prolific_submission_status'),
                ),
                migrations.AddIndex(
                    model_name='prolificsyncjob',
                    index=models.Index(fields=['study', '-created_at'], name='prolificsync_study_created'),
                ),
                migrations.AddConstraint(
                    model_name='prolificsyncjob',
                    constraint=models.CheckConstraint(condition=models.Q(('progress__gte', 0), ('progress__lte', 1)), name='prolificsyncjob_progress_range'),
                ),
                migrations.AddConstraint(
                    model_name='prolificsyncjob',
                    constraint=models.CheckConstraint(condition=models.Q(('status__in', ['queued', 'running', 'done', 'failed', 'cancelled'])), name='prolificsyncjob_status_valid'),
                ),
            ],
        ),
        migrations.RunPython(content_types_move, content_types_back),
    ]
