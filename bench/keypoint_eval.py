"""Benchmark: the key-point evaluation of a 1,000,000-prediction file, against the shared task's script.

Builds a synthetic corpus of the shared task's shape (topics with a pro and a con group of
arguments, ten key points per group, about four labelled pairs per argument) and a predictions
file scoring every argument against the ten key points of its group: 1,000,000 scores by default,
no tied scores. Then, each in a process of its own, times reading and scoring it with
``analysis.methods.keypoint_eval`` (the command line's work) and, when given, with the KPA 2021
shared task's own ``track_1_kp_matching.py`` on the same files; prints both times, the ratio, each
process's peak resident memory (``resource.getrusage``) and whether the two agree on the figures.

    .venv/bin/python bench/keypoint_eval.py [--topics 200] [--arguments 250] [--key-points 10]
        [--shared-task-script PATH]

PATH (or $KPA_SHARED_TASK_SCRIPT) is the script file, a checkout of IBM/KPA_2021_shared_task, or
a bare clone of it; the script is copied to a temporary folder and run from there. Without it,
only ours runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = "code/track_1_kp_matching.py"

# Each runner prints one JSON line: seconds (after the imports), peak RSS in MiB, strict, relaxed.
OURS = """
import json, resource, sys, time
from pathlib import Path
from analysis.methods.keypoint_eval import evaluate, load_data, read_predictions
start = time.perf_counter()
data = load_data(Path(sys.argv[1]), "bench")
predictions = read_predictions(Path(sys.argv[2]))
result = evaluate(arguments=data.arguments, key_points=data.key_points, labels=data.labels,
                  predictions=predictions)
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "strict": result.strict, "relaxed": result.relaxed}))
"""
THEIRS = """
import contextlib, importlib.util, io, json, re, resource, sys, time
spec = importlib.util.spec_from_file_location("track_1_kp_matching", sys.argv[3])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
start = time.perf_counter()
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    arguments, key_points, labels = module.load_kpm_data(sys.argv[1], subset="bench")
    merged = module.get_predictions(sys.argv[2], labels, arguments, key_points)
    module.evaluate_predictions(merged)
seconds = time.perf_counter() - start
found = re.search(r"mAP strict= (\\S+) ; mAP relaxed = (\\S+)", printed.getvalue())
print(json.dumps({"seconds": seconds, "rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "strict": float(found.group(1)), "relaxed": float(found.group(2))}))
"""


def build(folder: Path, *, topics: int, per_group: int, kps_per_group: int, seed: int) -> int:
    """Write arguments_/key_points_/labels_bench.csv and predictions.json; return the scores."""
    rng = np.random.default_rng(seed)
    groups = [(f"Topic {t}", stance) for t in range(topics) for stance in (1, -1)]
    n_args = len(groups) * per_group
    group_of = np.repeat(np.arange(len(groups)), per_group)
    arg_ids = [f"arg_{i}" for i in range(n_args)]
    pd.DataFrame({
        "arg_id": arg_ids,
        "argument": [f"argument text {i}" for i in range(n_args)],
        "topic": [groups[g][0] for g in group_of],
        "stance": [groups[g][1] for g in group_of],
    }).to_csv(folder / "arguments_bench.csv", index=False)
    kp_ids = [[f"kp_{g}_{k}" for k in range(kps_per_group)] for g in range(len(groups))]
    pd.DataFrame({
        "key_point_id": [kp for ids in kp_ids for kp in ids],
        "key_point": [f"key point {kp}" for ids in kp_ids for kp in ids],
        "topic": [groups[g][0] for g in range(len(groups)) for _ in range(kps_per_group)],
        "stance": [groups[g][1] for g in range(len(groups)) for _ in range(kps_per_group)],
    }).to_csv(folder / "key_points_bench.csv", index=False)

    # About four labelled key points per argument (ArgKP has 3.7), a third of them matches.
    labelled = min(4, kps_per_group)
    chosen = np.argsort(rng.random((n_args, kps_per_group)), axis=1)[:, :labelled]
    label = (rng.random((n_args, labelled)) < 1 / 3).astype(int)
    pd.DataFrame({
        "arg_id": np.repeat(arg_ids, labelled),
        "key_point_id": [kp_ids[group_of[a]][k] for a in range(n_args) for k in chosen[a]],
        "label": label.ravel(),
    }).to_csv(folder / "labels_bench.csv", index=False)

    # Scores: uniform, a little higher for matching pairs; distinct by construction.
    scores = rng.random((n_args, kps_per_group))
    bonus = np.zeros((n_args, kps_per_group))
    np.put_along_axis(bonus, chosen, 0.3 * label, axis=1)
    scores = scores + bonus
    with open(folder / "predictions.json", "w") as out:
        out.write("{")
        for a in range(n_args):
            if a:
                out.write(",")
            ids = kp_ids[group_of[a]]
            body = ",".join(f'"{ids[k]}":{float(scores[a, k])!r}' for k in range(kps_per_group))
            out.write(f'"{arg_ids[a]}":{{{body}}}')
        out.write("}")
    return n_args * kps_per_group


def shared_task_script(given: str | None, folder: Path) -> Path | None:
    """Copy the shared task's script into ``folder``; None when not given or not found."""
    if not given:
        return None
    source = Path(given)
    target = folder / "track_1_kp_matching.py"
    if source.is_file():
        shutil.copyfile(source, target)
    elif (source / SCRIPT).is_file():
        shutil.copyfile(source / SCRIPT, target)
    elif (source / "HEAD").is_file():  # a bare clone
        shown = subprocess.run(["git", "--git-dir", str(source), "show", f"HEAD:{SCRIPT}"],
                               capture_output=True, text=True)
        if shown.returncode != 0:
            print(f"shared task script: not in {source}: {shown.stderr.strip()}")
            return None
        target.write_text(shown.stdout)
    else:
        print(f"shared task script: {source} is neither the script nor a clone holding {SCRIPT}")
        return None
    return target


def run(code: str, *args: str) -> tuple[dict[str, float], float]:
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1]), time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--topics", type=int, default=200)
    parser.add_argument("--arguments", type=int, default=250, help="per topic and stance")
    parser.add_argument("--key-points", type=int, default=10, help="per topic and stance")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shared-task-script", default=os.environ.get("KPA_SHARED_TASK_SCRIPT"))
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="kpa-bench-") as temp:
        folder = Path(temp)
        n = build(folder, topics=args.topics, per_group=args.arguments,
                  kps_per_group=args.key_points, seed=args.seed)
        size = (folder / "predictions.json").stat().st_size / 2**20
        print(f"{n:,} predictions ({size:.0f} MiB JSON) for {2 * args.topics * args.arguments:,} "
              f"arguments in {2 * args.topics} topic/stance groups")
        ours, ours_wall = run(OURS, str(folder), str(folder / "predictions.json"))
        print(f"ours:   {ours['seconds']:.2f} s to read and score ({ours_wall:.2f} s with the "
              f"interpreter's start), peak RSS {ours['rss']:.0f} MiB; "
              f"strict {ours['strict']:.6f}, relaxed {ours['relaxed']:.6f}")
        script = shared_task_script(args.shared_task_script, folder)
        if script is None:
            print("shared task script: not given (--shared-task-script or KPA_SHARED_TASK_SCRIPT); skipped")
            return 0
        theirs, theirs_wall = run(THEIRS, str(folder), str(folder / "predictions.json"), str(script))
        agree = (abs(theirs["strict"] - ours["strict"]) <= 1e-6
                 and abs(theirs["relaxed"] - ours["relaxed"]) <= 1e-6)
        print(f"theirs: {theirs['seconds']:.2f} s ({theirs_wall:.2f} s with the interpreter's "
              f"start), peak RSS {theirs['rss']:.0f} MiB; strict {theirs['strict']:.6f}, "
              f"relaxed {theirs['relaxed']:.6f}")
        print(f"ratio: theirs / ours = {theirs['seconds'] / ours['seconds']:.1f}x; figures "
              f"{'agree' if agree else 'DIFFER'} to 1e-6")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
