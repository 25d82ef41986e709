"""The pairwise gold page: the pipeline's figures next to the paper's, Table 1, the argument
graph and ranking of a topic, the reason review, and the gold files."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from analysis import plots
from analysis.exports import GOLD_FILES, gold_file
from analysis.models import AnalysisRun
from analysis.reports import get_report
from analysis.selectors import active_run, annotations_since, latest_done, runs_of
from analysis.services import analysis_run_create
from analysis.views import svg_response
from annotation.access import permission_required
from annotation.models import Project
from annotation.services import worker_work_reject

KIND = "pairwise_gold"
SHOWN_PARAMS = ("mace_em", "mace_threshold", "mace_iterations", "mace_restarts", "penalty", "skip_first_pair",
                "equal_min_weight", "max_cluster_size", "seed")


def _done_run(slug: str, run_id: int) -> AnalysisRun:
    return get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug, kind=KIND, status=AnalysisRun.Status.DONE)


@permission_required("annotation.view_project")
def gold_page(request: HttpRequest, slug: str) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    if project.task_type != "pairwise":
        raise Http404("gold data of this kind is for pairwise projects")
    done = latest_done(project=project, kind=KIND)
    result = done.result if done else {}
    topics = sorted({p["topic"] for p in result.get("pairs", [])})
    topic = request.GET.get("topic") or (topics[0] if topics else "")
    topic_pairs = [p for p in result.get("pairs", []) if p["topic"] == topic]
    in_topic = {p["arg1"] for p in topic_pairs} | {p["arg2"] for p in topic_pairs}
    reasons: dict[str, int] = {}
    for p in result.get("pairs", []):
        reasons[p["reason"]] = reasons.get(p["reason"], 0) + 1
    report = get_report(KIND)
    flagged = result.get("reason_review", {}).get("workers", [])
    user_ids = dict(get_user_model().objects.filter(username__in=[w["worker"] for w in flagged])
                    .values_list("username", "pk"))
    ctx = {
        "project": project,
        "done": done,
        "running": active_run(project=project, kind=KIND),
        "failed": runs_of(project=project, kind=KIND).filter(status=AnalysisRun.Status.FAILED).order_by("-pk").first(),
        "new_annotations": annotations_since(run=done) if done else None,
        "result": result,
        "topics": topics,
        "topic": topic,
        "topic_ranking": [r for r in result.get("ranking", []) if r["argument"] in in_topic],
        "reasons": sorted(reasons.items(), key=lambda kv: -kv[1]),
        "flagged": [{**w, "user_id": user_ids.get(w["worker"])} for w in flagged],
        "files": list(GOLD_FILES),
        "params": [p for p in report.params if p.name in SHOWN_PARAMS],
        "last_params": done.params if done else {p.name: p.default for p in report.params},
    }
    return render(request, "analysis/gold.html", ctx)


@permission_required("annotation.view_project")
def graph(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    run = _done_run(slug, run_id)
    topic = request.GET.get("topic", "")
    kept = [p for p in run.result["pairs"] if p["topic"] == topic and p["strict"]]
    return svg_response(plots.preference_graph_svg(kept, title=topic))


@permission_required("annotation.export_annotations")
def gold_download(request: HttpRequest, slug: str, run_id: int, name: str) -> HttpResponse:
    run = _done_run(slug, run_id)
    if name not in GOLD_FILES:
        raise Http404(f"unknown gold file {name!r}")
    response = StreamingHttpResponse(gold_file(run, name), content_type=f"{GOLD_FILES[name]}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-run{run.pk}-{name}"'
    return response


@permission_required("annotation.change_assignment")
@require_POST
def reject_worker(request: HttpRequest, slug: str, worker_id: int) -> HttpResponse:
    """Reject all of a worker's work in the project and recompute the gold data without it."""
    project = get_object_or_404(Project, slug=slug)
    worker = get_object_or_404(get_user_model(), pk=worker_id)
    done = latest_done(project=project, kind=KIND)
    with transaction.atomic():
        n = worker_work_reject(project=project, worker=worker, note=f"rejected in the reason review by {request.user}")
        analysis_run_create(project=project, kind=KIND, params=done.params if done else {}, user=request.user)
    messages.success(request, f"Rejected {n} assignments of {worker.get_username()}; the gold data is being recomputed.")
    return redirect("gold-page", slug=slug)
