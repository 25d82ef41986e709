from django.apps import AppConfig


class KeyPointsConfig(AppConfig):
    name = "task_types.key_points"
    label = "key_points"
    verbose_name = "Key points"

    def ready(self) -> None:
        from analysis.reports import register_lazily
        from annotation.task_types import register
        from task_types.key_points.task import KeyPoints

        register(KeyPoints)
        # The report is imported when the registry is first read.
        register_lazily("task_types.key_points.report.KeyPointReport")
