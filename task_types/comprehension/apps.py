from django.apps import AppConfig


class ComprehensionConfig(AppConfig):
    name = "task_types.comprehension"
    label = "comprehension"
    verbose_name = "Listening and reading comprehension"

    def ready(self) -> None:
        from analysis.reports import register as register_report
        from annotation.task_types import register
        from task_types.comprehension.report import ComprehensionReport
        from task_types.comprehension.task import Comprehension

        register(Comprehension)
        register_report(ComprehensionReport)
