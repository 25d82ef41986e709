from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.importers import ImportFailed
from annotation.management.arguments import existing_project
from task_types.response_scoring.services import responses_import


class Command(BaseCommand):
    help = ("Import spoken responses into a response-scoring project from a folder: prompts.csv|jsonl "
            "(prompt_id, type, text), references.csv|jsonl (prompt_id, reference_id, text), responses.csv|jsonl "
            "(response_id, prompt_id, speaker, audio, asr_transcript, transcript) and an optional audio/ folder. "
            "All or nothing: errors name the file, the line and the field.")

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug (a response-scoring project)")
        parser.add_argument("folder", type=Path, help="the folder with the three files")

    def handle(self, *args, project, folder, **options):
        try:
            done = responses_import(project=project, folder=folder)
        except ImportFailed as exc:
            raise CommandError(f"nothing was imported:\n{exc}") from None
        self.stdout.write(f"{done.items} responses and {done.audio_files} audio files imported into {project.slug}")
