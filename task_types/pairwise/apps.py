from django.apps import AppConfig


class PairwiseConfig(AppConfig):
    name = "task_types.pairwise"
    label = "pairwise"
    verbose_name = "Pairwise convincingness"

    def ready(self) -> None:
        from analysis.reports import register_lazily
        from annotation.task_types import register
        from task_types.pairwise.task import PairwiseConvincingness

        register(PairwiseConvincingness)
        # The report (and the methods it brings) is imported when the registry is first read.
        register_lazily("task_types.pairwise.report.PairwiseGoldReport")
