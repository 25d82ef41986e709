from django.core.management.base import BaseCommand, CommandError

from analysis.methods.keypoint_track2 import COUNTS, Track2Error
from annotation.importers import ImportFailed
from annotation.management.arguments import existing_file, existing_project
from task_types.key_point_sets.build import key_point_sets_build
from task_types.key_points.system_files import ARGUMENT_COLUMNS, read_system, read_table


class Command(BaseCommand):
    help = ("Add key-point set comparisons to a key-point set ranking project: for each topic and stance of the "
            "arguments, every system's key points with their prevalence from its predictions.")

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug (a key-point set ranking project)")
        parser.add_argument("--arguments", type=existing_file, required=True, help="arguments.csv")
        parser.add_argument("--system", nargs=3, action="append", required=True,
                            metavar=("NAME", "KEY_POINTS_CSV", "PREDICTIONS_JSON"),
                            help="a system's name and output (give 2 to 5 systems)")
        parser.add_argument("--seed", type=int, default=0, help="seed of the sets' order and of ties (default 0)")
        parser.add_argument("--min-score", type=float, default=0.0,
                            help="an argument counts for its best key point only with this score (default 0)")
        parser.add_argument("--counts", choices=COUNTS, default="topic",
                            help="the key-point count check: topic (default, the shared task's rule: 5 to 10 per "
                                 "topic, both stances together), stance (5 to 10 per topic and stance), any (none)")
        parser.add_argument("--any-count", action="store_true", help="the same as --counts any")

    def handle(self, *args, project, arguments, system, seed, min_score, counts, any_count, **options):
        try:
            table = read_table(arguments.read_bytes(), ARGUMENT_COLUMNS, name=arguments.name)
            systems = [read_system(name, open(kp, "rb").read(), open(pred, "rb").read()) for name, kp, pred in system]
            built = key_point_sets_build(project=project, arguments=table, systems=systems, seed=seed,
                                         min_score=min_score, counts="any" if any_count else counts,
                                         lift="--counts any")
        except (Track2Error, ImportFailed, OSError) as exc:
            raise CommandError(str(exc)) from None
        self.stdout.write(f"{built.records} comparisons of {len(systems)} systems: {built.created} new items, "
                          f"{built.existing} already in the project")
