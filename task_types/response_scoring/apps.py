from django.apps import AppConfig


class ResponseScoringConfig(AppConfig):
    name = "task_types.response_scoring"
    label = "response_scoring"
    verbose_name = "Rubric scoring of spoken responses"

    def ready(self) -> None:
        from analysis.reports import register_lazily
        from annotation.task_types import register
        from task_types.response_scoring.task import ResponseScoring

        register(ResponseScoring)
        register_lazily("task_types.response_scoring.report.ResponseScoringReport")
