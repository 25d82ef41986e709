"""Benchmark: MACE on UKPConvArg1 in the configuration UKPConvArg1 was made with, against its peers.

Habernal & Gurevych (ACL 2016) ran MACE with threshold 0.95 (their paper) and EM, 500 iterations and
50 restarts (their released pipeline, Step5GoldLabelEstimator; the paper does not state them)
over 16,927 argument pairs. This times analysis.methods.mace on that, and in the same run the
original Java tool (when a built copy is given), crowd-kit's MACE and crowd-kit's Dawid-Skene,
and prints how far their labels and worker scores agree with ours.

    .venv/bin/python bench/mace.py [--data DIR] [--java-mace PATH] [--repeat N]

PATH is MACE.jar, a directory of compiled classes (edu/isi/MACE.class) or an executable.
crowd-kit comes from requirements-bench.txt. DIR defaults to $SHARED_DATA_DIR/ukpconvarg1, or
../shared/data/ukpconvarg1 next to the checkout. Ours also reports the peak memory its run
allocates (traced, in a run of its own) and the estimate that max_memory is checked against.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from analysis.methods.mace import mace_frame, memory_estimate  # noqa: E402
from analysis.methods.mace.em import block_threads  # noqa: E402

# The threshold is the paper's; EM, the iterations and the restarts are its authors' released code's.
PAPER = {"em": True, "iterations": 500, "restarts": 50, "threshold": 0.95}
DEFAULT_DATA = (
    Path(os.environ.get("SHARED_DATA_DIR", Path(__file__).resolve().parents[2] / "shared" / "data"))
    / "ukpconvarg1"
)


@dataclass
class Row:
    name: str
    seconds: float | None
    kept: int | None = None
    labels: pd.Series | None = None  # item -> label, on the items this peer labels
    scores: pd.Series | None = None  # worker -> competence-like score
    note: str = ""


def load(data: Path) -> pd.DataFrame:
    frame = pd.read_csv(
        data / "assignments.tsv.gz", sep="\t", usecols=["pair_id", "worker", "label"]
    )
    return frame.rename(columns={"pair_id": "item"})


def run_ours(frame: pd.DataFrame, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = mace_frame(frame, seed=2016, **PAPER)
        times.append(time.perf_counter() - start)
    note = f"best of {repeat}; median {statistics.median(times):.2f} s; " if repeat > 1 else ""
    tracemalloc.start()
    mace_frame(frame, seed=2016, **PAPER)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    estimate = memory_estimate(
        n_annotations=len(frame),
        n_items=frame["item"].nunique(),
        n_workers=frame["worker"].nunique(),
        n_labels=frame["label"].nunique(),
        restarts=PAPER["restarts"],
        threads=block_threads(None, PAPER["restarts"]),
    )
    note += f"peak {peak / 2**20:.0f} MiB allocated (estimate {estimate / 2**20:.0f} MiB)"
    return Row(
        "ours (analysis.methods.mace)",
        min(times),
        int(result.kept.sum()),
        result.labels.dropna(),
        result.competence,
        note,
    ), result


def java_command(path: Path) -> list[str]:
    if path.is_dir():
        return ["java", "-cp", str(path), "edu.isi.MACE"]
    if path.suffix == ".jar":
        return ["java", "-jar", str(path)]
    return [str(path)]


def run_java(path: Path, frame: pd.DataFrame, ours) -> Row:
    items, workers = ours.labels.index, ours.competence.index
    cells = np.full((len(items), len(workers)), "", dtype=object)
    cells[items.get_indexer(frame["item"]), workers.get_indexer(frame["worker"])] = frame[
        "label"
    ].to_numpy()
    with tempfile.TemporaryDirectory() as folder:
        source = Path(folder) / "ukpconvarg1.csv"
        with source.open("w", encoding="utf-8") as out:
            for row in cells:
                out.write(",".join(row) + "\n")
        command = java_command(path) + [
            "--em",
            "--iterations",
            "500",
            "--restarts",
            "50",
            "--threshold",
            "0.95",
            "--prefix",
            str(Path(folder) / "java"),
            str(source),
        ]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        if done.returncode != 0 or not (Path(folder) / "java.prediction").exists():
            return Row("Java MACE", None, note=f"failed: {done.stderr.strip()[-300:]}")
        predictions = (
            (Path(folder) / "java.prediction").read_text(encoding="utf-8").split("\n")[: len(items)]
        )
        competence = [float(v) for v in (Path(folder) / "java.competence").read_text().split("\t")]
    labels = pd.Series(predictions, index=items)
    labels = labels[labels != ""]
    training = re.search(r"Training completed in ([\d.]+)sec", done.stderr)
    note = "incl. JVM start and reading the CSV"
    if training:
        note += f"; it reports {training.group(1)} s of training"

    return Row(
        "Java MACE 0.3 (original)",
        seconds,
        len(labels),
        labels,
        pd.Series(competence, index=workers),
        note,
    )


def run_crowdkit(frame: pd.DataFrame, restarts: int) -> list[Row]:
    try:
        from crowdkit.aggregation import MACE, DawidSkene
    except ImportError:
        return [Row("crowd-kit", None, note="not installed: pip install -r requirements-bench.txt")]
    data = frame.rename(columns={"item": "task"})
    rows = []
    start = time.perf_counter()
    model = MACE(n_restarts=restarts, n_iter=500, method="em").fit(data)
    seconds = time.perf_counter() - start
    competence = pd.Series(model.spamming_[:, 1], index=pd.Index(pd.unique(data["worker"])))
    name = f"crowd-kit MACE (EM, 500 it., {restarts} restart{'s' if restarts > 1 else ''})"
    rows.append(Row(name, seconds, len(model.labels_), model.labels_, competence, "no threshold"))
    if restarts < 50:
        # Every crowd-kit restart starts from random_state, so 50 restarts fit the same model 50 times.
        rows.append(
            Row(
                "crowd-kit MACE, 50 restarts (extrapolated)",
                seconds * 50 / restarts,
                note="= 50 x the time per restart",
            )
        )
    start = time.perf_counter()
    model = DawidSkene(n_iter=100).fit(data)
    seconds = time.perf_counter() - start
    errors, priors = model.errors_, model.priors_
    # Skill: P(a worker's answer is the true label), averaged over the true labels' priors.
    diagonal = errors.stack().rename("p").reset_index()
    diagonal.columns = ["worker", "observed", "truth", "p"]
    diagonal = diagonal[diagonal["observed"] == diagonal["truth"]]
    skill = (diagonal["p"] * diagonal["truth"].map(priors)).groupby(diagonal["worker"]).sum()
    rows.append(
        Row(
            "crowd-kit Dawid-Skene (100 it.)",
            seconds,
            len(model.labels_),
            model.labels_,
            skill,
            "no threshold; score = accuracy",
        )
    )
    return rows


def agreement(ours, row: Row) -> tuple[str, str]:
    if row.labels is None:
        return "", ""
    # Against a thresholded peer, compare on the items both keep; otherwise on all items.
    mine = (
        ours.labels.dropna()
        if row.kept is not None and row.kept < len(ours.labels)
        else ours.posteriors.idxmax(axis=1)
    )
    shared = mine.index.intersection(row.labels.index)
    agree = f"{(mine[shared] == row.labels[shared]).mean():.2%} of {len(shared)}"
    scores = pd.concat([ours.competence, row.scores], axis=1, join="inner").dropna()
    return agree, f"{np.corrcoef(scores.iloc[:, 0], scores.iloc[:, 1])[0, 1]:.4f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--data", type=Path, default=DEFAULT_DATA, help="folder with assignments.tsv.gz"
    )
    parser.add_argument("--java-mace", type=Path, help="a built copy of the original Java tool")
    parser.add_argument("--repeat", type=int, default=3, help="runs of ours; the best counts")
    parser.add_argument(
        "--crowdkit-restarts",
        type=int,
        default=1,
        help="restarts for crowd-kit's MACE (identical ones)",
    )
    parser.add_argument("--skip-crowdkit", action="store_true")
    options = parser.parse_args()
    if not (options.data / "assignments.tsv.gz").exists():
        sys.exit(f"no UKPConvArg1 data in {options.data} (use --data)")

    frame = load(options.data)
    print(
        f"UKPConvArg1: {len(frame):,} labels, {frame['item'].nunique():,} pairs, {frame['worker'].nunique():,} workers"
    )
    print(
        f"configuration: EM, 500 iterations, 50 restarts, threshold 0.95; {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    )
    ours_row, ours = run_ours(frame, options.repeat)
    rows = [ours_row]
    if options.java_mace:
        rows.append(run_java(options.java_mace, frame, ours))
    else:
        rows.append(
            Row("Java MACE (original)", None, note="skipped: pass --java-mace PATH to a built copy")
        )
    if not options.skip_crowdkit:
        rows.extend(run_crowdkit(frame, options.crowdkit_restarts))

    header = f"{'method':<48} {'time s':>8} {'x ours':>8} {'kept':>7}  {'labels agree with ours':>24}  {'score r':>8}  note"
    print("\n" + header + "\n" + "-" * len(header))
    for row in rows:
        seconds = f"{row.seconds:8.2f}" if row.seconds is not None else f"{'-':>8}"
        ratio = f"{row.seconds / ours_row.seconds:8.1f}" if row.seconds is not None else f"{'-':>8}"
        kept = f"{row.kept:7d}" if row.kept is not None else f"{'-':>7}"
        agree, r = agreement(ours, row) if row is not ours_row else ("", "")
        print(f"{row.name:<48} {seconds} {ratio} {kept}  {agree:>24}  {r:>8}  {row.note}")
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
