from django.core.management.base import BaseCommand

from annotation.models import Annotation


class Command(BaseCommand):
    help = "Print how often each rating was given in a project."

    def add_arguments(self, parser):
        parser.add_argument("project", help="project slug")

    def handle(self, *args, project, **options):
        for rating in Annotation.objects.filter(assignment__project__slug=project).values_list("answer__rating", flat=True):
            self.stdout.write(str(rating))
