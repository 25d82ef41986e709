from django.core.management.base import BaseCommand, CommandError

from annotation.importers import ImportFailed
from annotation.management.arguments import existing_file, existing_project
from annotation.services import items_import_file


class Command(BaseCommand):
    help = "Import items into a project from CSV, TSV, JSON or JSONL; nothing is written unless every row is valid."

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug")
        parser.add_argument("file", type=existing_file)
        parser.add_argument("--format", choices=["csv", "tsv", "json", "jsonl"], help="default: from the file name")
        parser.add_argument("--on-duplicate", choices=["reject", "update"], default="reject",
                            help="what to do with ids already in the project (default: reject the file)")

    def handle(self, *args, project, file, format, on_duplicate, **options):
        try:
            result = items_import_file(project=project, data=file.read_bytes(), filename=file.name,
                                       fmt=format, on_duplicate=on_duplicate,
                                       source=f"{file.name} (manage.py import_items)")
        except ImportFailed as exc:
            raise CommandError(f"nothing was imported from {file}:\n{exc}") from None
        self.stdout.write(f"{file}: {result.created} new, {result.updated} updated, {result.unchanged} unchanged items")
        for warning in result.warnings:
            self.stderr.write(f"Warning: {warning}")
