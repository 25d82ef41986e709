from django.apps import AppConfig


def quality_links(project) -> list[tuple[str, str]]:
    """The project's quality rules page, for its overview."""
    from django.urls import reverse

    return [(reverse("quality-rules", args=(project.slug,)), "Quality rules")]


class QualityConfig(AppConfig):
    name = "quality"
    verbose_name = "Quality control"

    def ready(self) -> None:
        # The engine and the analysis lie below and never import quality control: it registers
        # what it adds to them.
        import quality.selectors.adjudication
        import quality.services.check_serving
        import quality.services.checks
        import quality.services.gold_counts
        import quality.services.gold_items
        import quality.services.rules.judging
        import quality.views.annotator
        from analysis.services import agreement_run_request, run_done_register
        from annotation.quality_port import quality_port_register
        from annotation.staff_links import staff_links_register
        from annotation.worker_figures import (
            competence_source_register,
            decision_words_register,
            first_shown_figure_register,
            interval_register,
        )
        from quality.api import annotator as api_annotator
        from quality.rules.checks import rules_after_run_safely
        from quality.rules.words import decision_words
        from quality.services.rules.judging import run_request_register
        from quality.worker_competence import agreement_competence, wilson_interval
        from quality.worker_page_figures import first_shown_svg

        staff_links_register(quality_links)
        competence_source_register(agreement_competence)
        interval_register(wilson_interval)
        # The worker page's rule decisions in the rules page's words, and its position-bias figure.
        decision_words_register(decision_words)
        first_shown_figure_register(first_shown_svg)
        # A finished analysis run has the project's rules judge it.
        run_done_register(done=rules_after_run_safely)
        # What the engine asks: on every request, what to serve next, what a submit means, and
        # what the worker is shown of it; after a review, the gold counts it changes.
        quality_port_register(serving=quality.services.check_serving, checks=quality.services.checks,
                              rules=quality.services.rules.judging, page=quality.views.annotator,
                              api=api_annotator, counts=quality.services.gold_counts,
                              gold=quality.services.gold_items, adjudication=quality.selectors.adjudication)
        # What queues the agreement run the competence rule reads as answers arrive.
        run_request_register(request=agreement_run_request)
        # What the engine and the analysis read of standings and policies, and the standing
        # change the engine makes.
        import quality.selectors.engine_reads
        import quality.services.standing
        from annotation.quality_port import quality_reads_register

        quality_reads_register(reads=quality.selectors.engine_reads, standing=quality.services.standing)
