from django.apps import AppConfig


class KeyPointsConfig(AppConfig):
    name = "task_types.key_points"
    label = "key_points"
    verbose_name = "Key points"

    def ready(self) -> None:
        from analysis.reports import register_lazily
        from annotation.task_types import register
        from task_types.key_points.ranking import KeyPointSets
        from task_types.key_points.task import KeyPoints

        # One line per task type of this app.
        register(KeyPoints)
        register(KeyPointSets)
        # Reports are imported when the registry is first read.
        register_lazily("task_types.key_points.report.KeyPointReport")
        register_lazily("task_types.key_points.ranking_report.KeyPointSetRanking")
