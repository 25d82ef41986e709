from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from annotation.importers import ImportFailed
from annotation.management.arguments import existing_project
from task_types.key_points.corpus import file_names, read_folder
from task_types.key_points.services import corpus_import


class Command(BaseCommand):
    help = ("Import the KPA 2021 shared task's files (arguments, key points and, if present, labels as gold) "
            "from a folder into a key-point project: one item per argument, all or nothing.")

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug (a key-point project)")
        parser.add_argument("data_dir", type=Path, help="folder with arguments[_SUBSET].csv, key_points[_SUBSET].csv "
                                                        "and optionally labels[_SUBSET].csv")
        parser.add_argument("--subset", default="", help="read arguments_SUBSET.csv … (e.g. dev, train); "
                                                         "default arguments.csv …")
        parser.add_argument("--update", action="store_true", help="replace items that exist (default: refuse)")

    def handle(self, *args, project, data_dir, subset, update, **options):
        try:
            corpus = read_folder(data_dir, subset)
            result = corpus_import(project=project, corpus=corpus, arguments_file=file_names(subset)["arguments"],
                                   on_duplicate="update" if update else "reject")
        except ImportFailed as exc:
            raise CommandError(f"Nothing was imported:\n{exc}") from None
        groups = len({(a["topic"], a["stance"]) for a in corpus.arguments})
        self.stdout.write(f"{len(corpus.arguments)} arguments in {groups} topic-stance groups, "
                          f"{len(corpus.key_points)} key points, {len(corpus.labels)} gold labels: "
                          f"{result.created} new items, {result.updated} updated, {result.unchanged} unchanged")
