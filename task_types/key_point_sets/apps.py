from django.apps import AppConfig, apps
from django.core.exceptions import ImproperlyConfigured


class KeyPointSetsConfig(AppConfig):
    name = "task_types.key_point_sets"
    label = "key_point_sets"
    verbose_name = "Key-point set ranking"
    # The apps whose public names this one imports (tests/test_layout.py allows exactly these):
    # a system's track 2 output is read by the matching app's ``system_files``.
    builds_on = ("task_types.key_points",)

    def ready(self) -> None:
        from analysis.reports import register_lazily
        from annotation.task_types import register
        from task_types.key_point_sets.task import KeyPointSets

        missing = [name for name in self.builds_on if not apps.is_installed(name)]
        if missing:
            raise ImproperlyConfigured(f"{self.name} builds on {', '.join(missing)}: add it to INSTALLED_APPS")
        register(KeyPointSets)
        # The report is imported when the registry is first read.
        register_lazily("task_types.key_point_sets.report.KeyPointSetRanking")
