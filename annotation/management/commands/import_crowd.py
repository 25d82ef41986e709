from django.core.management.base import BaseCommand, CommandError

from annotation.importers import ImportFailed
from annotation.management.arguments import existing_file, existing_project
from annotation.management.progress import ProgressLog
from annotation.services.crowd_results import crowd_import, parse_column_spec


class Command(BaseCommand):
    help = ("Import crowd results collected elsewhere (one row per label: worker, item, answer, times) "
            "into a project, all or nothing. Gzipped files are read as they are.")

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug")
        parser.add_argument("file", type=existing_file)
        parser.add_argument("--format", choices=["csv", "tsv", "json", "jsonl"], help="default: from the file name")
        parser.add_argument("--columns", default="",
                            help="map fields to the file's columns: 'label=Answer.choice,pair_id=Input.pair'; "
                                 "'mturk' maps worker, times, HIT and assignment ids of MTurk batch results")
        parser.add_argument("--label-map", default="", help="rename label values: 'A1=a1,A2=a2,Same=equal'")
        parser.add_argument("--source", default="mturk", help="platform the worker ids belong to (default mturk)")

    def handle(self, *args, project, file, format, columns, label_map, source, **options):
        try:
            mapping = parse_column_spec(spec=columns)
            labels = parse_column_spec(spec=label_map)
            result = crowd_import(project=project, data=file.read_bytes(), filename=file.name, fmt=format,
                                  columns=mapping, label_map=labels, source=source,
                                  progress=ProgressLog(self.stdout.write))
        except ImportFailed as exc:
            raise CommandError(f"nothing was imported from {file}:\n{exc}") from None
        self.stdout.write(
            f"{file}: {result.annotations} annotations; items {result.items_created} new, {result.items_existing} existing; "
            f"workers {result.workers_created} new, {result.workers_existing} known"
        )
