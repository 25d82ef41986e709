from pathlib import Path

from django.core.management.base import BaseCommand

from annotation.exports import FORMATS, annotation_rows, export_columns, stream
from annotation.management.arguments import existing_project


class Command(BaseCommand):
    help = "Write a project's raw annotations (worker ids, times, reasons, answers) as CSV, JSON or JSONL."

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug")
        parser.add_argument("--format", choices=list(FORMATS), default="csv")
        parser.add_argument("--out", type=Path, help="file to write (default: standard output)")
        parser.add_argument("--all", action="store_true", help="include rejected work and uncounted late answers")

    def handle(self, *args, project, format, out, all, **options):
        chunks = stream(annotation_rows(project=project, counted_only=not all), fmt=format, columns=export_columns(project))
        if out is None:
            for chunk in chunks:
                self.stdout.write(chunk, ending="")
            return
        with out.open("w", encoding="utf-8", newline="") as fh:
            for chunk in chunks:
                fh.write(chunk)
        self.stderr.write(f"wrote {out}")
