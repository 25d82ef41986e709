from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.importers import ImportFailed
from task_types.pairwise.arguments_file import parse_arguments
from task_types.pairwise.corpus import arguments_import


class Command(BaseCommand):
    help = "Import topics and arguments from a UKPConvArg-style arguments.tsv (arg_id, topic, debate_title, stance, author, text)."

    def add_arguments(self, parser):
        parser.add_argument("file", type=Path)

    def handle(self, *args, file, **options):
        if not file.is_file():
            raise CommandError(f"no such file: {file}")
        try:
            result = arguments_import(rows=parse_arguments(file.read_bytes()),
                                      source=f"{file.name} (manage.py import_arguments)")
        except ImportFailed as exc:
            raise CommandError(f"nothing was imported from {file}:\n{exc}") from None
        self.stdout.write(f"{file}: {result.topics} topics, {result.created} new and {result.updated} updated arguments")
