"""What a worker is told in a training round becomes a project setting. Policies made before it
keep what their workers were shown (the expected answer and why after each item: training
feedback never followed ``gold_feedback``, which is about gold questions), so that every worker
of a running study trains under the same conditions; new policies start from right/wrong only."""

from django.db import migrations, models


def keep_what_workers_saw(apps, schema_editor):
    QualityPolicy = apps.get_model("annotation", "QualityPolicy")
    QualityPolicy.objects.update(training_feedback="after_each")


class Migration(migrations.Migration):

    dependencies = [
        ("annotation", "0020_importjob_media_kind"),
    ]

    operations = [
        migrations.AddField(
            model_name="qualitypolicy",
            name="training_feedback",
            field=models.CharField(
                choices=[
                    ("after_each", "After each item: right or not, the expected answer and why"),
                    ("right_wrong", "After each item: only whether it was right"),
                    ("after_round", "After the round: which items were right, without the expected answers"),
                ],
                default="right_wrong",
                help_text="What a worker is told about their answers in a training round (qualification or "
                          "re-calibration).",
                max_length=12,
            ),
        ),
        migrations.RunPython(keep_what_workers_saw, migrations.RunPython.noop),
    ]
