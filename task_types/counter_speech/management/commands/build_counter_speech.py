from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

from annotation.importers import ImportFailed
from annotation.management.arguments import existing_project
from task_types.counter_speech.corpus import SETTINGS
from task_types.counter_speech.services import ibm_folder, questions_build


class Command(BaseCommand):
    help = ("Add counter-speech questions built from the IBM Debater Recorded Debating Dataset to a project, "
            "optionally a seeded sample of them (the paper: 60).")

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug (a counter-speech project)")
        parser.add_argument("--ibm", type=Path, help="the release's folder (default: the shared data's)")
        parser.add_argument("--setting", choices=SETTINGS, default="all", help="which counters count (default all)")
        parser.add_argument("--min-candidates", type=int, default=3, help="leave out smaller questions (default 3)")
        parser.add_argument("--max-candidates", type=int, default=5, help="sample candidates above this (default 5)")
        parser.add_argument("--sample", type=int, help="keep this many questions, drawn at random")
        parser.add_argument("--seed", type=int, default=0, help="seed of the candidates' order and the sample")

    def handle(self, *args, project, ibm, setting, min_candidates, max_candidates, sample, seed, **options):
        folder = ibm or ibm_folder(data_dir=Path(settings.SHARED_DATA_DIR))
        try:
            built = questions_build(project=project, folder=folder, setting=setting, min_candidates=min_candidates,
                                    max_candidates=max_candidates, sample=sample, seed=seed)
        except ImportFailed as exc:
            raise CommandError(str(exc)) from None
        for line in built.report.lines():
            self.stdout.write(line)
        advice = built.report.advice(setting="--min-candidates")
        if advice:
            self.stdout.write(f"To build {'more ' if built.report.questions else ''}questions, {advice}")
        self.stdout.write(f"{built.sampled} question{'s' * (built.sampled != 1)} "
                          f"{'sampled with seed ' + str(seed) if sample else 'kept'}: "
                          f"{built.created} new items, {built.existing} already in the project")
