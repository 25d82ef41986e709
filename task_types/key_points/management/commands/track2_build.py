from django.core.management.base import BaseCommand, CommandError

from analysis.methods.keypoint_track2 import COUNTS, Track2Error
from annotation.importers import ImportFailed
from annotation.management.arguments import existing_file, existing_project
from task_types.key_points.system_files import ARGUMENT_COLUMNS, read_system, read_table
from task_types.key_points.track2 import SHOW, track2_build


class Command(BaseCommand):
    help = ("Track 2: pair each argument with the system's best key point, keep the top half per topic and stance, "
            "and add a seeded sample of them to a key-point matching project as items.")

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug (a key-point matching project)")
        parser.add_argument("--arguments", type=existing_file, required=True, help="arguments.csv")
        parser.add_argument("--key-points", type=existing_file, required=True, help="the system's key_points.csv")
        parser.add_argument("--predictions", type=existing_file, required=True, help="the system's predictions JSON")
        parser.add_argument("--system", required=True, help="the system's name")
        parser.add_argument("--sample", type=int, help="pairs to label (default: the whole top half)")
        parser.add_argument("--seed", type=int, default=0, help="seed of ties and of the sample (default 0)")
        parser.add_argument("--show", choices=SHOW, default="all",
                            help="the key points an item lists: all of the system's for the topic and stance "
                                 "(default) or the predicted one")
        parser.add_argument("--counts", choices=COUNTS, default="topic",
                            help="the key-point count check: topic (default, the shared task's rule: 5 to 10 per "
                                 "topic, both stances together), stance (5 to 10 per topic and stance), any (none)")

    def handle(self, *args, project, arguments, key_points, predictions, system, sample, seed, show, counts,
               **options):
        try:
            table = read_table(arguments.read_bytes(), ARGUMENT_COLUMNS, name=arguments.name)
            output = read_system(system, key_points.read_bytes(), predictions.read_bytes())
            built = track2_build(project=project, arguments=table, system=output, sample=sample, seed=seed, show=show,
                                 counts=counts, lift="--counts any")
        except (Track2Error, ImportFailed) as exc:
            raise CommandError(str(exc)) from None
        s = built.selection
        self.stdout.write(f"{s.pairs} arguments paired with a key point ({s.without_prediction} without a valid "
                          f"prediction, {s.ignored} predicted ids ignored); {s.kept} in the top half; "
                          f"{len(s.records)} sampled: {built.created} new items, {built.existing} already in the project")
