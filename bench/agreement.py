"""Benchmark of the agreement figures on a synthetic project of 1,000,000 annotations.

    .venv/bin/python bench/agreement.py [--items 200000] [--ratings 5] [--workers 2000]

Times ``agreement_report`` (every figure) and reports its peak memory, then times peers in the
same run and prints ratios (peer time / ours): statsmodels' ``fleiss_kappa`` on the aggregated
table, the krippendorff package's ``alpha`` on a dense workers × items reliability matrix (on a
subsample: the full matrix alone would be workers × items × 8 bytes), and scikit-learn's
``cohen_kappa_score`` in a loop over worker pairs. Finally it prints the figures of the real
UKPConvArg1 crowd data (item = pair_id) when ../shared/data holds it.

Workers come in crews of 20 and each item goes to 5 members of one crew, as batches of HITs do
on MTurk; with workers drawn from the whole pool, two workers would share about one item and no
pair would reach the 10 shared items pairwise kappa asks for.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from analysis.methods.agreement import (  # noqa: E402
    agreement_report,
    encode_frame,
    fleiss_kappa,
    fleiss_kappa_from_counts,
    item_category_counts,
    krippendorff_alpha,
    pairwise_cohen_kappa,
    reliability_matrix,
)

UKP = ROOT.parent / "shared" / "data" / "ukpconvarg1" / "assignments.tsv.gz"


def synthetic_frame(
    n_items: int, ratings: int, n_workers: int, n_labels: int, seed: int = 0
) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    crew_size = 20
    crews = n_workers // crew_size
    crew = rng.integers(0, crews, n_items)
    members = np.argsort(rng.random((n_items, crew_size)), axis=1)[:, :ratings]
    worker = (crew[:, None] * crew_size + members).ravel()
    prevalence = np.linspace(2, 1, n_labels)
    truth = rng.choice(n_labels, n_items, p=prevalence / prevalence.sum())
    accuracy = rng.uniform(0.5, 0.95, n_workers)
    correct = rng.random(worker.size) < accuracy[worker]
    label = np.where(correct, np.repeat(truth, ratings), rng.integers(0, n_labels, worker.size))
    names = np.array([f"A{w:05d}" for w in range(n_workers)], dtype=object)
    return pd.DataFrame(
        {
            "item": np.repeat(np.arange(n_items), ratings),
            "worker": names[worker],
            "label": np.array([f"label{k}" for k in range(n_labels)], dtype=object)[label],
        }
    )


def timed(function, *args, repeat: int = 1, **kwargs):
    best, result = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = function(*args, **kwargs)
        best = min(best, time.perf_counter() - start)
    return best, result


def peak_memory(function, *args, **kwargs) -> float:
    """Peak bytes allocated (numpy buffers included) while ``function`` runs, in MB."""
    gc.collect()
    tracemalloc.start()
    function(*args, **kwargs)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def maxrss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def line(name: str, seconds: float, note: str = "") -> None:
    print(f"  {name:<58} {seconds:8.3f} s  {note}")


def sklearn_pair_loop(frame: pd.DataFrame, min_overlap: int) -> tuple[float, int]:
    """Mean Cohen's kappa over worker pairs the plain way: self-join on item, one sklearn call per pair."""
    from sklearn.metrics import cohen_kappa_score

    labels = sorted(frame["label"].unique())
    pairs = frame.merge(frame, on="item", suffixes=("_a", "_b"))
    pairs = pairs[pairs["worker_a"] < pairs["worker_b"]]
    kappas = []
    for _, group in pairs.groupby(["worker_a", "worker_b"], sort=False):
        if len(group) >= min_overlap:
            kappas.append(cohen_kappa_score(group["label_a"], group["label_b"], labels=labels))
    kappas = np.array(kappas)
    return float(np.nanmean(kappas)), int(np.isfinite(kappas).sum())


def synthetic(args: argparse.Namespace) -> None:
    from krippendorff import alpha as package_alpha
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

    seconds, frame = timed(synthetic_frame, args.items, args.ratings, args.workers, args.labels)
    print(
        f"synthetic project: {len(frame):,} annotations, {args.items:,} items × {args.ratings} ratings, "
        f"{args.workers:,} workers, {args.labels} labels (generated in {seconds:.1f} s)"
    )
    rss_before = maxrss_mb()
    seconds, report = timed(agreement_report, frame, repeat=3)
    rss_after = maxrss_mb()
    peak = peak_memory(agreement_report, frame)
    print("\nours")
    line("agreement_report (every figure, best of 3)", seconds, f"peak {peak:,.0f} MB traced")
    print(
        f"  {'process max RSS before / after the report':<58} {rss_before:,.0f} / {rss_after:,.0f} MB"
    )
    met = seconds < 10 and peak < 2048
    print(f"  target under 10 s and 2 GB: {'met' if met else 'NOT met'}")
    boot_seconds, booted = timed(agreement_report, frame, n_boot=args.boot, seed=0)
    boot_peak = peak_memory(agreement_report, frame, n_boot=args.boot, seed=0)
    line(
        f"agreement_report with --bootstrap {args.boot}",
        boot_seconds,
        f"peak {boot_peak:,.0f} MB traced",
    )
    figures = report.to_dict()
    print(
        "  figures:",
        json.dumps({k: round(v, 4) if isinstance(v, float) else v for k, v in figures.items()}),
    )
    print("  bootstrap intervals:", json.dumps(booted.to_dict()["bootstrap"]["intervals"]))

    print("\npeers (ratio = peer time / our time; > 1 means ours is faster)")
    encoded = encode_frame(frame)
    table = item_category_counts(encoded)
    ours, mine = timed(fleiss_kappa_from_counts, table, repeat=3)
    theirs, value = timed(sm_fleiss_kappa, table, repeat=3)
    assert abs(mine.value - value) < 1e-10
    line(
        "statsmodels fleiss_kappa(aggregated table)",
        theirs,
        f"ours {ours:.3f} s, ratio {theirs / ours:.1f}",
    )

    wide_seconds, wide = timed(
        lambda: (
            frame.assign(r=frame.groupby("item").cumcount())
            .pivot(index="item", columns="r", values="label")
            .to_numpy()
        )
    )
    aggregate_seconds, (sm_table, _) = timed(aggregate_raters, wide)
    theirs = wide_seconds + aggregate_seconds + timed(sm_fleiss_kappa, sm_table)[0]
    ours, mine = timed(fleiss_kappa, frame)
    line(
        "pivot + statsmodels aggregate_raters + fleiss_kappa (long frame)",
        theirs,
        f"ours {ours:.3f} s, ratio {theirs / ours:.1f}",
    )

    subsample = frame[frame["item"] < args.dense_items]
    sub_encoded = encode_frame(subsample)
    dense_seconds, dense = timed(reliability_matrix, sub_encoded)
    theirs, value = timed(package_alpha, reliability_data=dense, level_of_measurement="nominal")
    ours, mine = timed(krippendorff_alpha, subsample, repeat=3)
    assert abs(mine.value - value) < 1e-10
    line(
        f"krippendorff.alpha(dense {dense.shape[0]:,} × {dense.shape[1]:,} reliability data)",
        theirs,
        f"+{dense_seconds:.2f} s to build it ({dense.nbytes / 2**20:,.0f} MB); ours {ours:.3f} s, "
        f"ratio {(theirs + dense_seconds) / ours:.1f}",
    )
    full_gb = args.workers * args.items * 8 / 2**30
    print(f"  {'':<58} (full size dense matrix: {full_gb:.1f} GB — not built)")
    ours, mine = timed(krippendorff_alpha, frame, repeat=3)
    line("ours krippendorff_alpha on the full frame", ours, f"backend {mine.backend}")

    theirs, (value, n_pairs) = timed(sklearn_pair_loop, frame, 10)
    ours, mine = timed(pairwise_cohen_kappa, frame, repeat=3)
    assert mine.n_pairs == n_pairs and abs(mine.value - value) < 1e-10
    line(
        f"sklearn cohen_kappa_score loop over {n_pairs:,} worker pairs",
        theirs,
        f"ours {ours:.3f} s, ratio {theirs / ours:.1f}",
    )


def real_data(path: Path, boot: int) -> None:
    from krippendorff import alpha as package_alpha

    print(f"\nreal data: {path}")
    raw = pd.read_csv(path, sep="\t", usecols=["pair_id", "worker", "label"])
    frame = raw.rename(columns={"pair_id": "item"})
    seconds, nominal = timed(agreement_report, frame, n_boot=boot, seed=0)
    line(f"agreement_report, nominal, --bootstrap {boot}", seconds)
    print(json.dumps(nominal.to_dict(), indent=1))
    seconds, ordinal = timed(
        agreement_report, frame, level="ordinal", categories=["a1", "equal", "a2"]
    )
    line("agreement_report, ordinal a1 < equal < a2", seconds)
    data = ordinal.to_dict()
    keys = ("quadratic_weighted_kappa", "quadratic_weighted_kappa_pairs", "krippendorff_alpha")
    print("  " + json.dumps({k: data[k] for k in keys}))

    print("  the same figures from the peers:")
    theirs, (value, n_pairs) = timed(sklearn_pair_loop, frame, 10)
    line(
        f"sklearn loop: cohen_kappa {value:.6f} over {n_pairs:,} pairs",
        theirs,
        f"ours {nominal.cohen_kappa.value:.6f} over {nominal.cohen_kappa.n_pairs:,}",
    )
    dense = reliability_matrix(encode_frame(frame))
    theirs, value = timed(package_alpha, reliability_data=dense, level_of_measurement="nominal")
    line(
        f"krippendorff.alpha(dense {dense.shape[0]:,} × {dense.shape[1]:,}): {value:.6f}",
        theirs,
        f"ours {nominal.krippendorff_alpha.value:.6f}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--ratings", type=int, default=5)
    parser.add_argument("--workers", type=int, default=2_000)
    parser.add_argument("--labels", type=int, default=3)
    parser.add_argument("--boot", type=int, default=200, help="bootstrap resamples timed (200)")
    parser.add_argument(
        "--dense-items", type=int, default=20_000, help="items in the dense-matrix peer"
    )
    parser.add_argument("--data", type=Path, default=UKP)
    args = parser.parse_args()
    synthetic(args)
    if args.data.exists():
        real_data(args.data, args.boot)
    else:
        print(f"\nreal data: {args.data} is absent; skipped")
    print(f"\nprocess max RSS at the end (peers included): {maxrss_mb():,.0f} MB")


if __name__ == "__main__":
    main()
