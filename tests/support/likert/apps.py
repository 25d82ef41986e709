from django.apps import AppConfig


class LikertConfig(AppConfig):
    name = "tests.support.likert"
    label = "likert"

    def ready(self) -> None:
        from annotation.task_types import register
        from tests.support.likert.task import LikertRating

        register(LikertRating)
