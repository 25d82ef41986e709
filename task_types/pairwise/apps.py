from django.apps import AppConfig


class PairwiseConfig(AppConfig):
    name = "task_types.pairwise"
    label = "pairwise"
    verbose_name = "Pairwise convincingness"

    def ready(self) -> None:
        from analysis.reports import register as register_report
        from annotation.task_types import register
        from task_types.pairwise.report import PairwiseGoldReport
        from task_types.pairwise.task import PairwiseConvincingness

        register(PairwiseConvincingness)
        register_report(PairwiseGoldReport)
