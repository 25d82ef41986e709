from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.importers import ImportFailed
from annotation.management.arguments import existing_project
from annotation.services import media_import_folder, media_import_zip


class Command(BaseCommand):
    help = ("Store a project's audio files from a folder or a zip: by its manifest.csv (columns key,file), or "
            "every file named as audio under its file name. Nothing is stored unless every file is valid audio.")

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug")
        parser.add_argument("source", type=Path, help="a folder or a .zip file")
        parser.add_argument("--replace", action="store_true",
                            help="replace the files of keys the project already has (default: refuse the import)")

    def handle(self, *args, project, source: Path, replace: bool, **options):
        on_duplicate = "replace" if replace else "reject"
        try:
            if source.is_dir():
                result = media_import_folder(project=project, folder=source, on_duplicate=on_duplicate)
            elif source.is_file():
                with source.open("rb") as archive:
                    result = media_import_zip(project=project, archive=archive, name=source.name,
                                              on_duplicate=on_duplicate)
            else:
                raise CommandError(f"no such folder or file: {source}")
        except ImportFailed as exc:
            raise CommandError(f"nothing was stored from {source}:\n{exc}") from None
        skipped = f", {result.skipped} other files left out" if result.skipped else ""
        self.stdout.write(f"{source}: {result.created} new, {result.replaced} replaced audio files{skipped}")
