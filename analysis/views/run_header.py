"""The frame every report page shares: its run header (where the runs stand, the settings form,
start, restart, cancel, the progress bar that polls) and the controls behind it, on the page's
own address. A page supplies only its results (``results_context``, and its template, which
includes ``analysis/run_header.html``).

A GET only reads: a run whose worker died is shown as failed from its heartbeat
(``analysis.selectors.run_state``); the scheduler and the writes (a restart, a new run, a
cancel) are what mark it so.

The page's own address takes
- GET: the page; an htmx GET with ``?poll=<run id>``: that run's progress bar, or a refresh of
  the page once the run has ended (or its worker died);
- POST ``action=start`` with ``param_<name>`` fields: queue a run with those parameters;
- POST ``action=restart`` or ``action=cancel`` with ``job=<run id>``: restart or cancel that run.
Each POST comes back to the page.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest
from django.http.response import HttpResponseBase
from django.shortcuts import get_object_or_404, redirect, render
from django_htmx.http import HttpResponseClientRefresh

from analysis.forms import param_groups
from analysis.models import AnalysisRun
from analysis.reports import ParamError, Report, UnknownReport, get_report
from analysis.selectors import RunState, run_state
from analysis.services import analysis_run_cancel, analysis_run_create, analysis_run_restart
from annotation.models import Project
from annotation.selectors.progress import project_progress
from annotation.views.permissions import permission_required
from annotation.views.request_types import HtmxRequest
from jobs.selectors import is_dead

# Form fields that carry a run's parameters; other fields (the action, the CSRF token) are not.
PARAM_PREFIX = "param_"
PROGRESS = "analysis/run_status.html"


class RunHeaderMixin:
    """A report's result page (use with Django's ``View``): the project's runs of ``kind``, the
    latest finished one's results, and the run controls. Subclasses set ``kind`` (or
    ``kind_of``) and ``template_name``, and give their results in ``results_context``."""

    kind: str = ""
    template_name: str = ""
    # Whether the page shows the project's answer counts (``progress``) above its runs.
    shows_progress: bool = True
    request: HttpRequest

    # --- what a page supplies ------------------------------------------------------------------

    def kind_of(self, **kwargs: Any) -> str:
        """The kind of run the page shows (from the URL, for the generic report page)."""
        return self.kind

    def report_of(self, project: Project, kind: str) -> Report:
        """The page's report; 404 when it does not apply to the project."""
        try:
            report = get_report(kind)
        except UnknownReport:
            raise Http404(f"unknown report {kind!r}") from None
        if not report.applies_to(project.task_type):
            raise Http404(f"the report {kind!r} does not apply to {project.task_type} projects")
        return report

    def template_of(self, report: Report) -> str:
        return self.template_name

    def results_context(self, *, project: Project, report: Report, state: RunState) -> dict[str, Any]:
        """The page's own context: what it shows of the latest finished run (``state.done``)."""
        return {}

    def run_note(self, run: AnalysisRun) -> str:
        """What the header says of a finished run after its counts (its settings, say)."""
        return ""

    # --- the frame -----------------------------------------------------------------------------

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        handler = super().dispatch  # type: ignore[misc]  # Django's View, which this mixes into
        return permission_required("annotation.view_project")(handler)(request, *args, **kwargs)

    def _page(self, slug: str, kwargs: dict[str, Any]) -> tuple[Project, Report]:
        project = get_object_or_404(Project, slug=slug)
        return project, self.report_of(project, self.kind_of(**kwargs))

    def get(self, request: HtmxRequest, slug: str, **kwargs: Any) -> HttpResponse:
        project, report = self._page(slug, kwargs)
        if request.htmx and "poll" in request.GET:
            return self._poll(project, report, request.GET["poll"])
        state = run_state(project=project, kind=report.kind, viewer=request.user)
        ctx = {
            "project": project, "report": report, "kind": report.kind, "state": state,
            "done": state.done, "running": state.running, "result": state.result,
            "run_page": request.path,
            "run_note": self.run_note(state.done) if state.done else "",
            "param_groups": param_groups(report, state.done.params if state.done else None, project=project),
            **({"progress": project_progress(project=project)} if self.shows_progress else {}),
        }
        ctx.update(self.results_context(project=project, report=report, state=state))
        return render(request, self.template_of(report), ctx)

    def _poll(self, project: Project, report: Report, run_id: str) -> HttpResponse:
        """The progress bar of a run the page shows; once the run has ended, or its worker died,
        the page reloads to show it."""
        if not run_id.isdigit():
            raise Http404("no such run")
        run = get_object_or_404(AnalysisRun.objects.defer("result"), pk=int(run_id), project=project,
                                kind=report.kind)
        if run.is_finished or is_dead(job=run):
            return HttpResponseClientRefresh()
        return render(self.request, PROGRESS, {"project": project, "running": run, "run_page": self.request.path})

    def post(self, request: HtmxRequest, slug: str, **kwargs: Any) -> HttpResponse:
        project, report = self._page(slug, kwargs)
        action = request.POST.get("action")
        if action == "start":
            self._start(project, report)
        elif action in ("restart", "cancel"):
            if not request.user.has_perm("analysis.change_analysisrun"):
                raise PermissionDenied("You may not restart or cancel analysis runs.")
            run = get_object_or_404(AnalysisRun.objects.defer("result"), pk=_run_id(request), project=project,
                                    kind=report.kind)
            try:
                if action == "restart":
                    analysis_run_restart(run=run, user=request.user)
                else:
                    analysis_run_cancel(run=run, user=request.user)
                    messages.success(request, f"Run #{run.pk} was cancelled.")
            except ValueError as exc:
                messages.error(request, str(exc))
            if action == "cancel" and request.htmx:
                return HttpResponseClientRefresh()
        else:
            return HttpResponseBadRequest("action must be start, restart or cancel")
        return redirect(request.path)

    def _start(self, project: Project, report: Report) -> None:
        """Queue a run; its progress bar shows on the page. Parameters come from the fields
        named ``param_<name>`` only."""
        request = self.request
        if not request.user.has_perm("analysis.add_analysisrun"):
            raise PermissionDenied("You may not start analysis runs.")
        params = {key.removeprefix(PARAM_PREFIX): value for key, value in request.POST.items()
                  if key.startswith(PARAM_PREFIX) and value != ""}
        try:
            analysis_run_create(project=project, kind=report.kind, params=params, user=request.user)
        except ParamError as exc:
            messages.error(request, str(exc))


def _run_id(request: HttpRequest) -> int:
    value = request.POST.get("job", "")
    if not value.isdigit():
        raise Http404("no such run")
    return int(value)
