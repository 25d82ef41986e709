"""Reproduce UKPConvArg1 (Habernal & Gurevych, ACL 2016) from its raw crowd data."""

import time
from pathlib import Path
from typing import Any, cast

import pandas as pd
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from analysis.models import AnalysisRun
from analysis.services import analysis_run_create, analysis_run_execute
from annotation.importers import ImportFailed
from annotation.management.progress import ProgressLog
from annotation.models import Annotation, Project
from annotation.services.crowd_results import crowd_import
from annotation.services.projects import project_create
from task_types.pairwise.arguments_file import parse_arguments
from task_types.pairwise.corpus import arguments_import
from task_types.pairwise.exports import gold_file, released_files
from task_types.pairwise.published import RANKING_FOLDER, STRICT_FOLDER
from task_types.pairwise.report import REFERENCE_OPTION, REFERENCES
from task_types.pairwise.selectors import paper_value as printed

TABLE_COLUMNS = {
    "removed_apriori": "removed a priori", "pairs_before_first_cycle": "pairs before 1st cycle",
    "first_cycle_nodes": "nodes then", "first_cycle_edges": "edges then", "first_cycle_length": "1st cycle length",
    "transitivity_mean": "transitivity avg", "transitivity_max": "transitivity max", "final_nodes": "final nodes",
    "final_edges": "final edges", "pairs_kept": "kept", "pairs_ignored": "ignored",
}


class Command(BaseCommand):
    help = ("Import UKPConvArg1's arguments and 84,445 crowd labels into a project, run the gold pipeline "
            "(MACE, transitivity filter, PageRank) in this process and print our figures next to the paper's.")

    def add_arguments(self, parser):
        parser.add_argument("data", nargs="?", type=Path, default=settings.SHARED_DATA_DIR / "ukpconvarg1",
                            help="folder with arguments.tsv and assignments.tsv.gz")
        parser.add_argument("--project", default="ukpconvarg1", help="project slug (created when missing)")
        parser.add_argument("--out", type=Path, help="write all.tsv, strict.tsv, rank.tsv and the released "
                            f"folders {STRICT_FOLDER}/ and {RANKING_FOLDER}/ there")
        parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                            help="a parameter of the pairwise_gold pipeline, e.g. skip_first_pair=true")

    def handle(self, *args, data, project, out, param, **options):
        arguments, labels = data / "arguments.tsv", data / "assignments.tsv.gz"
        for path in (arguments, labels):
            if not path.is_file():
                raise CommandError(f"{path} is missing: give the folder of UKPConvArg1 (see shared/data/README.md)")
        params = dict(p.split("=", 1) for p in param if "=" in p)
        started = time.perf_counter()
        log = ProgressLog(self.stdout.write)
        try:
            log.note(f"importing the arguments of {arguments}")
            arguments_import(rows=parse_arguments(arguments.read_bytes()))
            target = Project.objects.filter(slug=project).first() or project_create(
                name="UKPConvArg1 crowd labels", slug=project, task_type="pairwise", redundancy=5,
                state=Project.State.CLOSED)
            # The gold page shows the paper's figures beside this project, and only beside it.
            if target.options.get(REFERENCE_OPTION) != "ukpconvarg1":
                target.options = {**target.options, REFERENCE_OPTION: "ukpconvarg1"}
                target.save(update_fields=["options"])
            if Annotation.objects.filter(assignment__project=target).exists():
                self.stdout.write(f"project {project!r} already holds its crowd labels; not importing again")
            else:
                log.note(f"importing the crowd labels of {labels}")
                result = crowd_import(project=target, data=labels.read_bytes(), filename=labels.name, progress=log)
                self.stdout.write(f"imported {result.annotations} labels on {result.items_created} pairs by "
                                  f"{result.workers_created} workers in {time.perf_counter() - started:.1f} s")
        except (ImportFailed, ValidationError) as exc:
            raise CommandError(str(exc)) from None
        try:
            run = analysis_run_create(project=target, kind="pairwise_gold", params=params, enqueue=False)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
        log.note("running the gold pipeline (MACE, transitivity filter, PageRank)")
        run = analysis_run_execute(run_id=run.pk)
        if run.status != AnalysisRun.Status.DONE:
            raise CommandError(f"the pipeline failed: {run.error}")
        self._print(run)
        if out:
            out.mkdir(parents=True, exist_ok=True)
            files = [(name, gold_file(run, name)) for name in ("all.tsv", "strict.tsv", "rank.tsv")]
            for path, lines in [*files, *released_files(run)]:
                (out / path).parent.mkdir(parents=True, exist_ok=True)
                with (out / path).open("w", encoding="utf-8", newline="") as fh:
                    fh.writelines(lines)
            self.stdout.write(f"wrote all.tsv, strict.tsv, rank.tsv, {STRICT_FOLDER}/ and {RANKING_FOLDER}/ to {out}")

    def _print(self, run: AnalysisRun) -> None:
        r = cast(dict[str, Any], run.result)  # the run is done: its result is set
        c, paper = r["counts"], REFERENCES["ukpconvarg1"]
        self.stdout.write(f"\npipeline run #{run.pk}: {run.seconds:.1f} s (MACE {r['mace']['method']}, "
                          f"threshold {run.params['mace_threshold']}, {run.params['mace_iterations']} iterations, "
                          f"{run.params['mace_restarts']} restarts)\n")
        self.stdout.write(f"{'':<34}{'paper':>10}{'ours':>10}")
        self.stdout.write(f"{'UKPConvArgAll (pairs MACE keeps)':<34}{paper['all']:>10,}{c['all']:>10,}")
        self.stdout.write(f"{'UKPConvArgStrict (DAG, no equal)':<34}{paper['strict']:>10,}{c['strict']:>10,}")
        self.stdout.write(f"{'UKPConvArgRank (arguments)':<34}{paper['rank']:>10,}{c['rank']:>10,}")
        accuracy = r["human_performance"]["best_worker_accuracy"]
        self.stdout.write(f"{'best-ranked worker vs gold':<34}{paper['best_worker_accuracy']:>10.3f}{accuracy:>10.3f}"
                          f"   (paper: its {paper['best_worker_source']}; ours: the released crowd data)\n")
        # Each configuration's paper row (as the paper prints it) above ours (two decimals).
        paper_rows = {(p["scenario"], p["strategy"]): p for p in paper["table1"]}
        rows, index = [], []
        for mean in r["table1"]["mean"]:
            config = (mean["scenario"], mean["strategy"])
            rows.append([printed(value=paper_rows[config].get(f)) for f in TABLE_COLUMNS])
            rows.append(["-" if mean.get(f) is None else f"{mean[f]:.2f}" for f in TABLE_COLUMNS])
            index += [(*config, "paper"), (*config, "ours")]
        table = pd.DataFrame(rows, columns=list(TABLE_COLUMNS.values()),
                             index=pd.MultiIndex.from_tuples(index, names=["scenario", "strategy", "source"]))
        self.stdout.write("Table 1, averaged over topics (paper: as printed in Table 1; ours: this run):")
        self.stdout.write(table.to_string(sparsify=False))
