from django.apps import AppConfig


def report_links(project) -> list[tuple[str, str]]:
    """The result pages of the reports that apply to the project's task type, for its overview."""
    # Imported when a page asks: the reports bring numpy and pandas, which start-up does not need.
    from analysis.reports import page_url, report_pages

    return [(page_url(key, project.slug), label) for key, label in report_pages(project.task_type)]


class AnalysisConfig(AppConfig):
    name = "analysis"
    verbose_name = "Analysis"

    def ready(self) -> None:
        # The crowd engine lies below analysis and never imports it: analysis adds its pages.
        from annotation.staff_links import staff_links_register

        staff_links_register(report_links)
