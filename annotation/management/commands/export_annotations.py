from pathlib import Path

from django.core.management.base import BaseCommand

from annotation.exports import FORMATS, annotation_rows, export_columns, stream
from annotation.management.arguments import existing_project
from annotation.selectors.counted import excluded_workers


class Command(BaseCommand):
    help = "Write a project's raw annotations (worker ids, times, reasons, answers) as CSV, JSON or JSONL."

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug")
        parser.add_argument("--format", choices=list(FORMATS), default="csv")
        parser.add_argument("--out", type=Path, help="file to write (default: standard output)")
        parser.add_argument("--all", action="store_true", help="include rejected work and uncounted late answers")
        parser.add_argument("--include-blocked", action="store_true",
                            help="include the answers of workers blocked in the project (left out while the "
                                 "project's option says so)")

    def handle(self, *args, project, format, out, all, include_blocked, **options):
        left_out = 0 if include_blocked else excluded_workers(project=project)
        if left_out:
            self.stderr.write(f"left out: the answers of {left_out} worker{'s' if left_out != 1 else ''} blocked in "
                              "this project (--include-blocked adds them)")
        chunks = stream(annotation_rows(project=project, counted_only=not all, include_blocked=include_blocked),
                        fmt=format, columns=export_columns(project))
        if out is None:
            for chunk in chunks:
                self.stdout.write(chunk, ending="")
            return
        with out.open("w", encoding="utf-8", newline="") as fh:
            for chunk in chunks:
                fh.write(chunk)
        self.stderr.write(f"wrote {out}")
