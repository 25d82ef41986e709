"""The pairwise gold page: the pipeline's figures (next to a reproduced corpus's published ones),
Table 1, the argument graph and ranking of a topic, the reason review, and the gold files."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.views import View
from django.views.decorators.http import require_http_methods

from analysis.models import AnalysisRun
from analysis.reports import Report, get_report
from analysis.selectors import RunState, latest_done
from analysis.views.dashboard import svg_response
from analysis.views.run_header import RunHeaderMixin
from annotation.models import Project
from annotation.selectors.staff import worker_assignment_counts
from annotation.views.permissions import permission_required
from annotation.views.request_types import AuthenticatedRequest
from annotation.wording import count_of
from task_types.pairwise.exports import GOLD_FILES, RELEASED_ZIP, gold_file, released_zip
from task_types.pairwise.gold_review import gold_worker_reject
from task_types.pairwise.report import REFERENCE_OPTION, REFERENCES
from task_types.pairwise.selectors import TABLE1_COLUMNS, gold_topic, table1_rows

KIND = "pairwise_gold"
PAGE = "gold-page"
FLAGGED_PER_PAGE = 100


def _project(slug: str) -> Project:
    project = get_object_or_404(Project, slug=slug)
    if not get_report(KIND).applies_to(project.task_type):
        raise Http404(f"the gold pipeline does not apply to {project.task_type} projects")
    return project


def _done_run(slug: str, run_id: int) -> AnalysisRun:
    return get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug, kind=KIND, status=AnalysisRun.Status.DONE)


class GoldPage(RunHeaderMixin, View):
    """The gold pipeline's page: its figures, Table 1, a topic's graph and ranking, and the
    reason review of the latest finished run."""

    kind = KIND
    template_name = "pairwise/gold.html"
    shows_progress = False

    def results_context(self, *, project: Project, report: Report, state: RunState) -> dict[str, Any]:
        result = state.result
        # Flagged workers a page at a time: a crowd of spammers can flag thousands.
        flagged = Paginator(result.get("reason_review", {}).get("workers", []), FLAGGED_PER_PAGE).get_page(
            self.request.GET.get("fpage"))
        user_ids = dict(get_user_model().objects.filter(username__in=[w["worker"] for w in flagged])
                        .values_list("username", "pk"))
        reference = REFERENCES.get(project.options.get(REFERENCE_OPTION))
        return {
            # Only a finished run (state.done) has a result; testing both lets the type checker see it.
            "view": gold_topic(run=state.done, topic=self.request.GET.get("topic")) if result and state.done else None,
            "flagged": [{**w, "user_id": user_ids.get(w["worker"])} for w in flagged],
            "flagged_page": flagged,
            "files": list(GOLD_FILES),
            "reference": reference,
            "table1": table1_rows(result=result, reference=reference) if result else [],
            "table1_columns": [heading for heading, _ in TABLE1_COLUMNS],
        }

    def run_note(self, run: AnalysisRun) -> str:
        p = run.params
        estimate = "MACE EM" if p.get("mace_em") else "MACE variational Bayes"
        return (f"{estimate}, threshold {p.get('mace_threshold')}, {p.get('mace_iterations')} iterations, "
                f"{p.get('mace_restarts')} restarts, λ = {p.get('penalty')}")


gold_page = GoldPage.as_view()


@permission_required("annotation.view_project")
def graph(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    """The topic's argument graph as a standalone SVG file (the page draws the same inline)."""
    run = _done_run(slug, run_id)
    topic = request.GET.get("topic", "")
    view = gold_topic(run=run, topic=topic)
    if view.topic != topic or not view.graph.nodes:
        raise Http404(f"no kept pairs in topic {topic!r}")
    svg = render_to_string("pairwise/preference_graph.svg", {"graph": view.graph, "topic": topic})
    return svg_response('<?xml version="1.0" encoding="utf-8"?>\n' + svg)


@permission_required("annotation.export_annotations")
def gold_download(request: HttpRequest, slug: str, run_id: int, name: str) -> StreamingHttpResponse:
    run = _done_run(slug, run_id)
    if name not in GOLD_FILES:
        raise Http404(f"unknown gold file {name!r}")
    if name == RELEASED_ZIP:
        response = StreamingHttpResponse(released_zip(run), content_type=GOLD_FILES[name])
    else:
        response = StreamingHttpResponse(gold_file(run, name), content_type=f"{GOLD_FILES[name]}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-run{run.pk}-{name}"'
    return response


@permission_required("annotation.change_assignment")
@require_http_methods(["GET", "POST"])
def reject_worker(request: AuthenticatedRequest, slug: str, worker_id: int) -> HttpResponse:
    """GET: say what rejecting the worker's work would do and ask to confirm; POST: reject all
    of their counted work in the project and recompute the gold data without it."""
    project = _project(slug)
    worker = get_object_or_404(get_user_model(), pk=worker_id)
    done = latest_done(project=project, kind=KIND)
    counts = worker_assignment_counts(project=project, worker=worker)
    if request.method != "POST":
        review = next((w for w in (done.result or {}).get("reason_review", {}).get("workers", [])
                       if w["worker"] == worker.get_username()), None) if done else None
        return render(request, "pairwise/reject_confirm.html",
                      {"project": project, "worker": worker, "counts": counts, "done": done, "review": review})
    rejection = gold_worker_reject(project=project, worker=worker, reviewer=request.user)
    n = rejection.rejected
    if not n:
        messages.info(request, f"{worker.get_username()} has no counted work in this project: nothing was rejected.")
    elif not rejection.queued:
        # The rejection is stored; only the recompute could not be queued (its run is failed,
        # with the reason, and can be restarted): say so rather than answer "try again".
        messages.warning(request, f"Rejected {count_of(n, 'assignment', 'assignments')} of "
                                  f"{worker.get_username()}, but the job queue could not be reached: the gold data "
                                  f"was not recomputed. Restart run #{rejection.run.pk if rejection.run else ''} "
                                  "once the job queue is back.")
    else:
        messages.success(request, f"Rejected {count_of(n, 'assignment', 'assignments')} of "
                                  f"{worker.get_username()}; the gold data is being recomputed.")
    return redirect(PAGE, slug=slug)
