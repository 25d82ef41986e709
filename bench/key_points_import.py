"""Benchmark: the KPA 2021 train split through a key-point project.

    .venv/bin/python bench/key_points_import.py [--annotators 5] [--predictions 1000000]

In a scratch SQLite database: reads and checks the train split's three files (5,583 arguments,
207 key points, 20,635 labels), imports them as items (one per argument, its labels as gold),
adds ``--annotators`` answers per argument (marks drawn from the gold labels: a labelled match is
marked with probability 0.9, a labelled non-match with 0.05, an unlabelled pair with 0.4), runs
the key-point report (labels from the answers, the summary), exports the corpus files, and scores
a predictions file of ``--predictions`` (argument, key point) scores (the train pairs, padded with
scores for key-point ids the data lacks) through the evaluation the upload page runs. Times in
seconds, peak memory as the process's maximum resident size.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data" / "kpa_2021")
    parser.add_argument("--annotators", type=int, default=5)
    parser.add_argument("--predictions", type=int, default=1_000_000)
    args = parser.parse_args()
    os.environ.pop("DATABASE_URL", None)
    os.environ.pop("REDIS_URL", None)
    os.environ["SQLITE_PATH"] = str(Path(tempfile.mkdtemp()) / "bench.sqlite3")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("DJANGO_DEBUG", "1")  # a scratch run needs no secret key
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.files.base import ContentFile
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from analysis.services import analysis_run_create, analysis_run_execute
    from annotation.models import Annotation, Assignment, Item, Project
    from task_types.key_points.corpus import read_folder
    from task_types.key_points.evaluation import evaluation_upload
    from task_types.key_points.selectors import corpus_files
    from task_types.key_points.services import corpus_import

    figures: dict[str, float] = {}

    def timed(name, fn):
        start = time.perf_counter()
        value = fn()
        figures[name] = round(time.perf_counter() - start, 2)
        print(f"{name:<40} {figures[name]:>7.2f} s   peak {peak_mb():,.0f} MB", flush=True)
        return value

    corpus = timed("read and check the train files", lambda: read_folder(args.data, "train"))
    print(f"  {len(corpus.arguments):,} arguments, {len(corpus.key_points):,} key points, {len(corpus.labels):,} labels")
    project = Project.objects.create(slug="bench-kp", name="bench", task_type="key_points",
                                     redundancy=args.annotators, state=Project.State.ACTIVE)
    timed("import as items (HITs)", lambda: corpus_import(project=project, corpus=corpus))

    def annotate() -> int:
        rng = random.Random(0)
        User = get_user_model()
        User.objects.bulk_create([User(username=f"kpw{w}", password="!") for w in range(args.annotators)])
        workers = list(User.objects.filter(username__startswith="kpw").values_list("pk", flat=True))
        base = datetime(2026, 1, 1, tzinfo=UTC)
        assignments, answers = [], []
        for item_id, payload, gold in Item.objects.filter(project=project).values_list("pk", "payload", "gold"):
            gold = gold or {}
            for w in workers:
                p = {1: 0.9, 0: 0.05}
                marked = [kp["id"] for kp in payload["key_points"] if rng.random() < p.get(gold.get(kp["id"], -1), 0.4)]
                assignments.append(Assignment(item_id=item_id, project=project, worker_id=w, status="submitted",
                                              assigned_at=base, expires_at=base + timedelta(minutes=30),
                                              submitted_at=base))
                answers.append({"key_points": marked, "none": not marked})
        Assignment.objects.bulk_create(assignments, batch_size=5000)
        Annotation.objects.bulk_create([Annotation(assignment=a, answer=ans, seconds=10.0)
                                        for a, ans in zip(assignments, answers, strict=True)], batch_size=5000)
        return len(answers)

    n = timed("setup: answers inserted in bulk", annotate)
    print(f"  {n:,} answers")
    run = timed("derive labels and the summary (report)", lambda: analysis_run_execute(
        run_id=analysis_run_create(project=project, kind="key_points", enqueue=False).pk))
    assert run.status == "done", run.error
    result = run.result
    print(f"  {result['n_pairs']:,} pairs: {result['n_positive']:,} label 1, {result['n_negative']:,} label 0, "
          f"{result['n_ambiguous']:,} ambiguous")
    files = timed("export the three CSV files", lambda: corpus_files(project=project))
    print(f"  {', '.join(f'{k} {len(v):,} bytes' for k, v in files.items())}")

    rng = random.Random(1)
    predictions: dict[str, dict[str, float]] = {}
    pairs = [(a["arg_id"], kp["key_point_id"]) for a in corpus.arguments for kp in corpus.key_points
             if (kp["topic"], kp["stance"]) == (a["topic"], a["stance"])]
    total = 0
    for arg_id, kp_id in pairs:
        predictions.setdefault(arg_id, {})[kp_id] = rng.random()
        total += 1
    extra = 0
    while total < args.predictions:  # padding: ids the data lacks, ignored and reported by the evaluation
        arg_id = corpus.arguments[extra % len(corpus.arguments)]["arg_id"]
        predictions[arg_id][f"kp_x_{extra}"] = rng.random()
        extra += 1
        total += 1
    raw = json.dumps(predictions).encode()
    print(f"  predictions: {total:,} scores ({len(pairs):,} of real pairs), {len(raw) / 1e6:.1f} MB of JSON")
    job = timed("evaluate the predictions (job, gold labels)", lambda: evaluation_upload(
        project=project, upload=ContentFile(raw), filename="p.json", size=len(raw), inline=True))
    job.refresh_from_db()
    assert job.status == "done", job.error
    print(f"  strict mAP {job.result['strict']:.4f}, relaxed {job.result['relaxed']:.4f} (random scores)")
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
