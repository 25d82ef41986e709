"""Projects take workers from one recruiting panel (``recruiting.panels``) instead of a list of
accepted sources. Each project gets the panel its workers came from, so the links already handed
out keep working and every worker keeps their account (identity = panel or custom name + id)."""

import re
from collections import Counter

import django.core.validators
from django.conf import settings
from django.db import migrations, models

import annotation.providers.registry

# The presets as this migration knows them; later presets do not change what it did.
PRESETS = ("prolific", "mturk", "cloudresearch", "sona")
SOURCE_NAME = re.compile(r"^[a-z0-9_-]{1,40}$")


def _chosen_source(project, used: Counter) -> str | None:
    """The one source the project keeps: the one its completion URL points to, else the one most
    of its marketplace workers came from, else the first it listed; None if it listed none."""
    listed = [s.strip().lower() for s in (project.marketplace_sources or "").split(",") if s.strip()]
    listed = [s for s in listed if SOURCE_NAME.match(s)]
    if not listed:
        return None
    if "prolific" in listed and "prolific.com" in (project.completion_url or ""):
        return "prolific"
    in_use = [s for s in listed if used[s]]
    if in_use:
        return max(in_use, key=lambda s: (used[s], -listed.index(s)))
    return listed[0]


def panels_from_sources(apps, schema_editor):
    Project = apps.get_model("annotation", "Project")
    WorkerProfile = apps.get_model("annotation", "WorkerProfile")
    for project in Project.objects.all():
        used = Counter(WorkerProfile.objects.filter(user__annotation_projects=project, external_id__isnull=False)
                       .values_list("source", flat=True))
        source = _chosen_source(project, used)
        if source is None:
            # It accepted no link: it stays closed to them.
            project.panel, project.external_entry = "prolific", False
        elif source in PRESETS:
            project.panel = source
        else:
            # A generic link (worker_id=…&source=NAME, or "link" without a source).
            project.panel, project.custom_source, project.worker_param = "custom", source, "worker_id"
        project.save(update_fields=["panel", "custom_source", "worker_param", "external_entry"])


def sources_from_panels(apps, schema_editor):
    Project = apps.get_model("annotation", "Project")
    for project in Project.objects.all():
        project.marketplace_sources = project.custom_source if project.panel == "custom" else project.panel
        project.save(update_fields=["marketplace_sources"])


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0018_bonus_payment_state'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='project',
            name='custom_source',
            field=models.CharField(blank=True, default='link', help_text='Custom panel only: the name its workers are known by (their accounts are NAME+id).', max_length=40, validators=[django.core.validators.RegexValidator(re.compile('^[a-z0-9_-]{1,40}$'), 'A panel name holds only a-z, 0-9, - and _ (at most 40).')], verbose_name='custom panel name'),
        ),
        migrations.AddField(
            model_name='project',
            name='extra_params',
            field=models.CharField(blank=True, help_text='Custom panel only: other query parameters to keep with each answer, separated by commas.', max_length=300, verbose_name='other parameters'),
        ),
        migrations.AddField(
            model_name='project',
            name='panel',
            field=models.CharField(choices=annotation.providers.registry.provider_choices, default='prolific', help_text='The panel whose study links the project takes; links of any other are refused.', max_length=40, verbose_name='recruiting panel'),
        ),
        migrations.AddField(
            model_name='project',
            name='worker_param',
            field=models.CharField(blank=True, default='worker_id', help_text="Custom panel only: the query parameter that carries the worker's id.", max_length=60, validators=[django.core.validators.RegexValidator(re.compile('^[A-Za-z0-9_.-]{1,60}$'), 'A parameter name holds only letters, digits, _, . and -.')], verbose_name='worker-id parameter'),
        ),
        migrations.AlterField(
            model_name='project',
            name='completion_url',
            field=models.CharField(blank=True, help_text="Where marketplace workers go when done, a template with {code}, {worker_id}, {PARAMETER}. Empty: the panel's own (Prolific's ends in ?cc={code}), or the code to copy.", max_length=500, verbose_name='completion URL'),
        ),
        migrations.AlterField(
            model_name='qualitypolicy',
            name='screened_out_url',
            field=models.CharField(blank=True, help_text="Where marketplace workers who fail the qualification go, a template like the completion URL ({code} is the screened-out code). Empty: the panel's own, if it has one (Prolific's).", max_length=500, verbose_name='screened-out URL'),
        ),
        migrations.RunPython(panels_from_sources, sources_from_panels),
        migrations.RemoveField(
            model_name='project',
            name='marketplace_sources',
        ),
        migrations.AddConstraint(
            model_name='project',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('panel', 'custom'), _negated=True), models.Q(('worker_param', ''), _negated=True), _connector='OR'), name='project_custom_panel_worker_param'),
        ),
    ]
