from django.core.management.base import BaseCommand, CommandError

from annotation.importers import ImportFailed
from annotation.management.arguments import existing_project
from task_types.pairwise.corpus import pairs_generate
from task_types.pairwise.models import Topic


class Command(BaseCommand):
    help = "Add all pairs of a topic's arguments to a pairwise project, A1/A2 order drawn with a recorded seed."

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug")
        parser.add_argument("topics", nargs="+", help="topic ids (or 'all')")
        parser.add_argument("--seed", type=int, required=True)
        parser.add_argument("--min-words", type=int, help="leave out shorter arguments (the paper: 10)")
        parser.add_argument("--max-words", type=int, help="leave out longer arguments (the paper: 110)")
        parser.add_argument("--sample", type=int, help="keep this many arguments per topic, drawn at random")

    def handle(self, *args, project, topics, seed, min_words, max_words, sample, **options):
        chosen = list(Topic.objects.all()) if topics == ["all"] else []
        for topic_id in [] if chosen else topics:
            topic = Topic.objects.filter(external_id=topic_id).first()
            if topic is None:
                raise CommandError(f"no topic {topic_id!r}; import arguments first (manage.py import_arguments)")
            chosen.append(topic)
        for topic in chosen:
            try:
                result = pairs_generate(project=project, topic=topic, seed=seed, min_words=min_words,
                                        max_words=max_words, sample=sample, source="manage.py generate_pairs")
            except ImportFailed as exc:
                raise CommandError(str(exc)) from None
            self.stdout.write(f"{topic.external_id}: {result.arguments} arguments, {result.pairs} pairs, "
                              f"{result.imported.created} new items, {result.skipped_existing} already present")
