import json

from django.core.management.base import BaseCommand, CommandError

from annotation.importers import ImportFailed
from annotation.management.arguments import existing_file, existing_project
from task_types.key_points.evaluation import evaluation_upload
from task_types.key_points.models import PredictionEvaluation


class Command(BaseCommand):
    help = ("Score a system's predictions JSON {arg_id: {key_point_id: score}} against a key-point project's "
            "labels (its imported gold, else the labels derived from its annotations): strict and relaxed mAP "
            "as the KPA 2021 shared task computed them. Prints one JSON object.")

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug (a key-point project)")
        parser.add_argument("predictions", type=existing_file, help="the predictions JSON file")
        parser.add_argument("--ties", choices=PredictionEvaluation.Ties.values, default=PredictionEvaluation.Ties.OFFICIAL,
                            help="how tied scores are settled: official (default), as the shared task's script; "
                                 "file-order, in the files' order")

    def handle(self, *args, project, predictions, ties, **options):
        try:
            with predictions.open("rb") as handle:
                job = evaluation_upload(project=project, upload=handle, filename=predictions.name,
                                        size=predictions.stat().st_size, inline=True, ties=ties)
        except ImportFailed as exc:
            raise CommandError(str(exc)) from None
        job.refresh_from_db()
        if job.status != job.Status.DONE:
            raise CommandError(job.error or f"the evaluation is {job.status}")
        self.stdout.write(json.dumps({"evaluation": job.pk, "labels": job.labels, **(job.result or {})}))
