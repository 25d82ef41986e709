import json

from django.core.management.base import BaseCommand, CommandError

from analysis.methods.keypoint_track2 import Track2Error
from annotation.management.arguments import existing_file, existing_project
from task_types.key_points.system_files import ARGUMENT_COLUMNS, read_system, read_table
from task_types.key_points.track2 import track2_score


class Command(BaseCommand):
    help = ("Track 2: score a system on the labels its matching items received (the project's thresholds), "
            "exactly as track 1 scores predictions; prints one JSON object.")

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug (the track 2 matching project)")
        parser.add_argument("--arguments", type=existing_file, required=True, help="arguments.csv")
        parser.add_argument("--key-points", type=existing_file, required=True, help="the system's key_points.csv")
        parser.add_argument("--predictions", type=existing_file, required=True, help="the system's predictions JSON")
        parser.add_argument("--system", default="system", help="the system's name")
        parser.add_argument("--ties", choices=("official", "file-order"), default="official",
                            help="how tied scores are settled: official (default), as the shared task's script; "
                                 "file-order, in the files' order")

    def handle(self, *args, project, arguments, key_points, predictions, system, ties, **options):
        try:
            table = read_table(arguments.read_bytes(), ARGUMENT_COLUMNS, name=arguments.name)
            output = read_system(system, key_points.read_bytes(), predictions.read_bytes())
            result = track2_score(project=project, arguments=table, system=output, ties=ties)
        except Track2Error as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(json.dumps(result))
