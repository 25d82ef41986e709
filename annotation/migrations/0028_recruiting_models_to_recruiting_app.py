"""Recruiting's models move to the recruiting app (``recruiting.migrations.0001``): the engine
app forgets them, their tables stay."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0027_quality_models_to_quality_app'),
    ]

    operations = [
        # The tables stay as they are: only Django's record of which app owns them changes.
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveField(
                    model_name='bonus',
                    name='annotation',
                ),
                migrations.RemoveField(
                    model_name='bonus',
                    name='payment',
                ),
                migrations.RemoveField(
                    model_name='bonus',
                    name='project',
                ),
                migrations.RemoveField(
                    model_name='bonus',
                    name='worker',
                ),
                migrations.RemoveField(
                    model_name='bonuspayjob',
                    name='created_by',
                ),
                migrations.RemoveField(
                    model_name='bonuspayjob',
                    name='payment',
                ),
                migrations.RemoveField(
                    model_name='bonuspayjob',
                    name='project',
                ),
                migrations.RemoveField(
                    model_name='bonuspayment',
                    name='created_by',
                ),
                migrations.RemoveField(
                    model_name='bonuspayment',
                    name='project',
                ),
                migrations.RemoveField(
                    model_name='projectpay',
                    name='project',
                ),
                migrations.RemoveField(
                    model_name='prolificstudy',
                    name='project',
                ),
                migrations.RemoveField(
                    model_name='prolificsubmission',
                    name='study',
                ),
                migrations.RemoveField(
                    model_name='prolificsyncjob',
                    name='study',
                ),
                migrations.RemoveField(
                    model_name='prolificsubmission',
                    name='decided_by',
                ),
                migrations.RemoveField(
                    model_name='prolificsubmission',
                    name='project',
                ),
                migrations.RemoveField(
                    model_name='prolificsubmission',
                    name='worker',
                ),
                migrations.RemoveField(
                    model_name='prolificsyncjob',
                    name='created_by',
                ),
                migrations.DeleteModel(
                    name='ProlificWebhookEvent',
                ),
                migrations.DeleteModel(
                    name='Bonus',
                ),
                migrations.DeleteModel(
                    name='BonusPayJob',
                ),
                migrations.DeleteModel(
                    name='BonusPayment',
                ),
                migrations.DeleteModel(
                    name='ProjectPay',
                ),
                migrations.DeleteModel(
                    name='ProlificStudy',
                ),
                migrations.DeleteModel(
                    name='ProlificSubmission',
                ),
                migrations.DeleteModel(
                    name='ProlificSyncJob',
                ),
            ],
        ),
    ]
