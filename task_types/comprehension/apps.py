from django.apps import AppConfig


class ComprehensionConfig(AppConfig):
    name = "task_types.comprehension"
    label = "comprehension"
    verbose_name = "Listening and reading comprehension"

    def ready(self) -> None:
        from analysis.reports import register_lazily
        from annotation.task_types import register
        from task_types.comprehension.task import Comprehension

        register(Comprehension)
        # The report (and the methods it brings) is imported when the registry is first read.
        register_lazily("task_types.comprehension.report.ComprehensionReport")
