import json
import time

from django.core.management.base import BaseCommand, CommandError

from analysis.models import AnalysisRun
from analysis.reports import ParamError, UnknownReport, get_report, report_kinds
from analysis.services import analysis_recompute_all, analysis_run_create, analysis_run_execute
from annotation.management.arguments import existing_project
from jobs.selectors import live_state, worker_alive
from runtime.unavailable import ServiceUnavailable


class Command(BaseCommand):
    help = ("Start an analysis run of a project: queued for the job workers (follow it with --wait or on the "
            "dashboard), or executed in this process with --here.")

    def add_arguments(self, parser):
        parser.add_argument("project", type=existing_project, help="project slug")
        parser.add_argument("--kind", default="agreement", help=f"one of: {', '.join(k for k, _ in report_kinds())}")
        parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                            help="a parameter of the kind (repeatable); --list-params shows them")
        parser.add_argument("--list-params", action="store_true")
        parser.add_argument("--all", dest="every_kind", action="store_true",
                            help="queue every kind that applies to the project, each with its latest parameters")
        parser.add_argument("--wait", type=float, default=0, metavar="SECONDS",
                            help="wait up to this long for a queued run to finish, printing its progress")
        parser.add_argument("--here", action="store_true",
                            help="execute the run in this process instead of queueing it for a worker")
        parser.add_argument("--json", dest="as_json", action="store_true", help="print the whole result as JSON")

    def handle(self, *args, project, kind, param, list_params, wait, here, as_json, every_kind, **options):
        try:
            report = get_report(kind)
        except UnknownReport as exc:
            raise CommandError(str(exc)) from None
        if list_params:
            for p in report.params:
                what = "slug of another project of the same task type" if p.project else p.type.__name__
                self.stdout.write(f"{p.name} ({what}, default {p.default!r}): {p.help}")
            return
        if every_kind:
            try:
                runs = analysis_recompute_all(project=project)
            except (ParamError, ServiceUnavailable) as exc:
                raise CommandError(str(exc)) from None
            for run in runs:
                run.refresh_from_db()
                self.stdout.write(f"{run.kind} run #{run.pk}: {run.status}")
            return
        params = {}
        for item in param:
            name, sep, value = item.partition("=")
            if not sep:
                raise CommandError(f"--param {item!r}: write NAME=VALUE")
            params[name.strip()] = value.strip()
        try:
            run = analysis_run_create(project=project, kind=kind, params=params, enqueue=not here)
        except ParamError as exc:
            raise CommandError(str(exc)) from None
        except ServiceUnavailable as exc:
            # The job queue is away: the run is stored, failed with the reason.
            raise CommandError(f"{exc} Or run it in this process with --here.") from None
        if here:
            run = analysis_run_execute(run_id=run.pk)
        deadline = time.monotonic() + wait
        run.refresh_from_db()
        shown = ""
        while not run.is_finished and time.monotonic() < deadline:
            state = live_state(job=run)
            line = f"run #{run.pk} {run.status}: {state.percent}% {state.stage}".rstrip()
            if line != shown:
                self.stderr.write(line)
                shown = line
            time.sleep(0.5)
            run.refresh_from_db()
        self._report(run, as_json=as_json)

    def _report(self, run: AnalysisRun, *, as_json: bool) -> None:
        if not run.is_finished:
            waiting = "" if worker_alive() else "; no job worker is running: start one with `make worker`, or use --here"
            self.stdout.write(f"run #{run.pk} is {run.status} ({live_state(job=run).stage or 'waiting for a worker'}){waiting}; "
                              "see the dashboard")
            return
        if run.status != AnalysisRun.Status.DONE:
            raise CommandError(f"run #{run.pk} {run.status}: {run.error}")
        if as_json:
            self.stdout.write(json.dumps(run.result, indent=2, default=str))
            return
        self.stdout.write(f"run #{run.pk} done in {run.seconds:.2f} s over {run.annotations_seen} annotations")
        figures = (run.result or {}).get("figures", {})
        for key in ("krippendorff_alpha", "fleiss_kappa", "cohen_kappa", "gwet_ac1", "percent_agreement",
                    "high_confidence_share"):
            if key in figures:
                value = figures[key]
                self.stdout.write(f"  {key:<24} {'–' if value is None else f'{value:.4f}'}")
