"""How often the quality rules err, and how soon they decide: simulated pairwise studies judged
by the tests the rules use (``analysis.methods.sequential``, with the rule defaults of
``annotation.rule_defaults.DEFAULTS``), and the coverage of the MACE competence
interval (``analysis.methods.mace.bootstrap``) at the agreement report's replicates.

A study: a worker answers pairwise items (N = 5 answers per item, 10% of them gold questions
with a known answer that names one side), in the order they come; the per-answer rules judge
after every answer exactly as on the server (the running ratio against ``log(1 / alpha)``,
after ``min_answers``). Workers:

- at the bar: gold right at the gold rule's bar, 10% of real answers too fast (the too-fast
  rule's bar), sides chosen by content (an order drawn per answer, as the engine draws it);
- 5 points above the bar: gold right at the bar + 0.05, 1% too fast (an honest time profile);
- random clicker: a1, a2 or equal at random, at honest times;
- always first: the argument shown on the left, at honest times;
- speeder: at random, in under a quarter of the median time.

The competence rule is judged as on the server: after every ``RUN_EVERY`` answers to real items,
MACE's bootstrap interval over the worker's answers among a crowd of honest workers
(``competence_first``), on fewer studies (``--competence-studies``: 90 runs of MACE a study)
and only for the workers it could decide about before the other rules.

Printed: per rule and worker, the share of studies in which the rule ever decides within the
study's length, and the median answers until the first decision of any rule; then whether
each goal holds. ``--write`` stores the table in ``quality/rules/error_rates.py`` for
the rules page.

    python bench/quality/rules_simulation.py            # 2000 studies per worker, 300 for competence, 20 for MACE coverage
    python bench/quality/rules_simulation.py --write    # and store the figures for the rules page
"""

from __future__ import annotations

import argparse
import os
import pprint
import sys
import time
from dataclasses import dataclass
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from analysis.methods.mace.bootstrap import (  # noqa: E402
    DEFAULT_LEVEL,
    DEFAULT_REPLICATES,
    TAIL_SHARE,
    competence_high_below,
    competence_intervals,
)
from analysis.methods.sequential import (  # noqa: E402
    SequentialTest,
    gold_accuracy_test,
    gold_test,
    position_test_of,
    too_fast_test,
    too_fast_test_of,
)
from annotation.rule_defaults import DEFAULTS, RUN_EVERY  # noqa: E402

GOLD_RATE = 0.10
PER_ITEM = 5
STUDY_GOLD = 200  # a study's length in gold answers: 2,000 answers at 10% gold
STUDY_ANSWERS = int(STUDY_GOLD / GOLD_RATE)
COMMAND = "python bench/quality/rules_simulation.py --write"
# Where ``--write`` stores the table: the module the rules page reads.
TABLE_MODULE = ROOT / "quality" / "rules" / "error_rates.py"
# The competence rule's crowd: honest workers whose gold accuracy is drawn between the gold bar and
# this far above it, answering the worker's items beside them and a stock of items of their own.
CROWD = 20
CROWD_ABOVE = 0.15
CROWD_ITEMS = 100
HONEST_TIE = 0.1
# The workers the competence rule is simulated for: always first and speeder are decided about in a
# median below ``RUN_EVERY`` answers, before the rule's first run could change it.
COMPETENCE_WORKERS = ("at the bar", "5 points above the bar", "random clicker")


@dataclass(frozen=True)
class Worker:
    name: str
    gold_right: float  # chance a gold answer is right
    fast: float  # chance a real answer is too fast
    first: float  # chance a real answer that chose a side chose the one shown first
    tie: float  # chance a real answer is "equal" (no side: not counted by position bias)


def workers(bar: float, fast_bar: float) -> list[Worker]:
    return [
        Worker("at the bar", bar, fast_bar, 0.5, 0.1),
        Worker("5 points above the bar", min(bar + 0.05, 1.0), 0.01, 0.5, 0.1),
        Worker("random clicker", 1 / 3, 0.01, 0.5, 1 / 3),
        Worker("always first", 0.5, 0.01, 1.0, 0.0),
        Worker("speeder", 1 / 3, 1.0, 0.5, 1 / 3),
    ]


def first_crossing(steps: np.ndarray, counted: np.ndarray, test: SequentialTest, min_answers: int) -> np.ndarray:
    """Per study (rows), the answer (1-based, over all the worker's answers) at which the test
    first decides; 0 where it never does. ``steps``: each answer's step (0 where not counted)."""
    llr = np.cumsum(steps, axis=1)
    n = np.cumsum(counted, axis=1)
    hit = (llr >= test.bound) & (n >= min_answers)
    return np.where(hit.any(axis=1), hit.argmax(axis=1) + 1, 0)


def simulate(worker: Worker, studies: int, rng: np.random.Generator) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """The answer at which each per-answer rule first decides, per study (0: never), and which
    answers were gold (studies x answers)."""
    shape = (studies, STUDY_ANSWERS)
    gold = rng.random(shape) < GOLD_RATE
    real = ~gold
    wrong = gold & (rng.random(shape) >= worker.gold_right)
    fast = real & (rng.random(shape) < worker.fast)
    sided = real & (rng.random(shape) >= worker.tie)
    first = sided & (rng.random(shape) < worker.first)
    g, f, p = DEFAULTS["gold_accuracy"], DEFAULTS["too_fast"], DEFAULTS["position_bias"]
    gt = gold_test(threshold=g["threshold"], confidence=g["confidence"])
    ft = too_fast_test_of(threshold=f["threshold"], confidence=f["confidence"])
    pt = position_test_of(options=2, excess=p["threshold"], confidence=p["confidence"])
    found = {
        "gold accuracy": first_crossing(np.where(gold, np.where(wrong, gt.hit_step, gt.miss_step), 0.0), gold, gt,
                                        g["min_answers"]),
        "too fast": first_crossing(np.where(real, np.where(fast, ft.hit_step, ft.miss_step), 0.0), real, ft,
                                   f["min_answers"]),
        "position bias": first_crossing(np.where(sided, np.where(first, pt.hit_step, pt.miss_step), 0.0), sided, pt,
                                        p["min_answers"]),
    }
    # The vectorised steps are the rules' own: where gold accuracy first decides, the rule's
    # function on the counts so far decides too, and one answer earlier it does not.
    for row in np.flatnonzero(found["gold accuracy"])[:20]:
        at = found["gold accuracy"][row]
        answered, right = int(gold[row, :at].sum()), int((gold[row, :at] & ~wrong[row, :at]).sum())
        assert gold_accuracy_test(right=right, answered=answered, threshold=g["threshold"],
                                  confidence=g["confidence"], min_answers=g["min_answers"]).decided
    for row in np.flatnonzero(found["too fast"])[:20]:
        at = found["too fast"][row]
        assert too_fast_test(fast=int(fast[row, :at].sum()), answers=int(real[row, :at].sum()),
                             threshold=f["threshold"], confidence=f["confidence"], min_answers=f["min_answers"]).decided
    return found, gold


def pairwise_labels(rng: np.random.Generator, truth: np.ndarray, right: np.ndarray | float,
                    tie: float) -> np.ndarray:
    """Answers to items whose better side is ``truth`` (0: a1, 1: a2): that side with chance
    ``right``, "equal" (2) with chance ``tie``, the other side otherwise."""
    u = rng.random(np.shape(truth))
    return np.where(u < right, truth, np.where(u < right + tie, 2, 1 - truth))


def competence_first(worker: Worker, real: int, bar: float, seed: int) -> int:
    """The answer to a real item (1-based) at which the competence rule first decides about the
    worker in one study of ``real`` answers to real items (0: never). Each real item the worker
    answers has a side that is better and four answers of the crowd (``CROWD`` honest workers of
    gold accuracy drawn from the bar to ``CROWD_ABOVE`` above it, "equal" in ``HONEST_TIE`` of
    answers), beside ``CROWD_ITEMS`` items of the crowd's own with five answers each. After
    every ``RUN_EVERY`` answers of the worker, the agreement run the server requests: MACE's
    bootstrap interval at the report's defaults (``DEFAULT_REPLICATES`` replicates of 50
    iterations, seed 0) over every answer so far; the rule decides when the worker's upper end
    lies below its bar, as ``quality.rules.findings.competence`` does."""
    c = DEFAULTS["competence"]
    rng = np.random.default_rng(seed)
    crowd_right = rng.uniform(bar, min(bar + CROWD_ABOVE, 1.0), CROWD)
    truth = rng.integers(0, 2, CROWD_ITEMS + real)
    crowd_items = [rng.choice(CROWD, PER_ITEM, replace=False) for _ in range(CROWD_ITEMS)]
    beside = [rng.choice(CROWD, PER_ITEM - 1, replace=False) for _ in range(real)]
    items = np.concatenate([np.repeat(np.arange(CROWD_ITEMS), PER_ITEM),
                            np.repeat(np.arange(CROWD_ITEMS, CROWD_ITEMS + real), PER_ITEM - 1)])
    who = np.concatenate(crowd_items + beside)
    crowd = pairwise_labels(rng, truth[items], crowd_right[who], HONEST_TIE)
    mine = pairwise_labels(rng, truth[CROWD_ITEMS:], worker.gold_right, worker.tie)
    for answered in range(RUN_EVERY, real + 1, RUN_EVERY):
        if answered < c["min_answers"]:
            continue
        shown = CROWD_ITEMS * PER_ITEM + answered * (PER_ITEM - 1)  # the crowd's answers so far
        decided = competence_high_below(
            np.concatenate([items[:shown], np.arange(CROWD_ITEMS, CROWD_ITEMS + answered)]),
            np.concatenate([who[:shown], np.full(answered, CROWD)]),
            np.concatenate([crowd[:shown], mine[:answered]]),
            worker=CROWD, threshold=c["threshold"], n_workers=CROWD + 1, n_labels=3,
            replicates=DEFAULT_REPLICATES, level=DEFAULT_LEVEL, seed=0)
        if decided:
            return answered
    return 0


def competence_coverage(studies: int, replicates: int, seed: int, level: float = 0.95) -> tuple[float, int]:
    """Share of workers whose competence lies in their nominal 95% interval, over simulated
    studies of MACE's own model (20 workers of competence 0.3–0.95 spamming from their own
    distribution, 100 items of 3 labels, 5 answers each)."""
    hits = total = 0
    for s in range(studies):
        rng = np.random.default_rng(seed + s)
        n_items, n_workers, n_labels = 100, 20, 3
        theta = rng.uniform(0.3, 0.95, n_workers)
        truth = rng.integers(0, n_labels, n_items)
        items = np.repeat(np.arange(n_items), PER_ITEM)
        who = np.concatenate([rng.choice(n_workers, PER_ITEM, replace=False) for _ in range(n_items)])
        spam = rng.dirichlet(np.ones(n_labels), n_workers)
        careful = rng.random(len(items)) < theta[who]
        spammed = (rng.random(len(items))[:, None] > np.cumsum(spam[who], axis=1)).sum(axis=1)
        labels = np.where(careful, truth[items], spammed)
        found = competence_intervals(items, who, labels, n_workers=n_workers, n_labels=n_labels,
                                     replicates=replicates, seed=seed + s, level=level)
        hits += int(((found.low <= theta) & (theta <= found.high)).sum())
        total += n_workers
    return hits / total, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--studies", type=int, default=2000, help="simulated studies per worker (default 2000)")
    parser.add_argument("--mace-studies", type=int, default=20, help="simulated studies for MACE coverage (default 20)")
    parser.add_argument("--competence-studies", type=int, default=300,
                        help="studies per worker for the competence rule (MACE after every 20 answers; default 300)")
    parser.add_argument("--processes", type=int, default=os.cpu_count() or 1, help="processes for the competence rule")
    parser.add_argument("--replicates", type=int, default=DEFAULT_REPLICATES, help="MACE bootstrap replicates")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--write", action="store_true", help="store the table for the rules page")
    parser.add_argument("--plain", action="store_true",
                        help="MACE: the plain 2.5th-97.5th percentiles instead of the calibrated interval")
    args = parser.parse_args()
    started = time.perf_counter()
    rng = np.random.default_rng(args.seed)
    g, f = DEFAULTS["gold_accuracy"], DEFAULTS["too_fast"]
    rows = []
    medians: dict[str, float | None] = {}
    rates: dict[tuple[str, str], float] = {}
    comp_rates: dict[str, float] = {}
    for worker in workers(g["threshold"], f["threshold"]):
        found, gold = simulate(worker, args.studies, rng)
        if worker.name in COMPETENCE_WORKERS:
            # The competence rule over the first studies: its real answers are the study's.
            k = min(args.competence_studies, args.studies)
            jobs = [(worker, int((~gold[i]).sum()), g["threshold"], args.seed + 7919 * (i + 1)) for i in range(k)]
            with Pool(args.processes) as pool:
                at_real = pool.starmap(competence_first, jobs)
            at = np.array([np.flatnonzero(~gold[i])[r - 1] + 1 if r else 0 for i, r in enumerate(at_real)])
            comp_rates[worker.name] = float((at > 0).mean())
            for rule, hit in found.items():
                rates[(rule, worker.name)] = float((hit > 0).mean())
            found = {rule: hit[:k] for rule, hit in found.items()} | {"competence": at}
        any_rule = np.where(np.stack(list(found.values())) == 0, STUDY_ANSWERS + 1, np.stack(list(found.values()))).min(axis=0)
        decided = any_rule <= STUDY_ANSWERS
        medians[worker.name] = float(np.median(any_rule)) if decided.mean() > 0.5 else None
        for rule, hit in found.items():
            if rule != "competence":
                rates.setdefault((rule, worker.name), float((hit > 0).mean()))
    goals = [
        ("gold accuracy", "at the bar", "decided about in ≤ 5% of studies", rates[("gold accuracy", "at the bar")] <= 0.05),
        ("gold accuracy", "5 points above the bar", "≤ 1%", rates[("gold accuracy", "5 points above the bar")] <= 0.01),
        ("too fast", "at the bar", "≤ 5%", rates[("too fast", "at the bar")] <= 0.05),
        ("position bias", "at the bar", "≤ 5% (unbiased worker)", rates[("position bias", "at the bar")] <= 0.05),
        ("competence", "at the bar", "≤ 5%", comp_rates["at the bar"] <= 0.05),
        ("competence", "5 points above the bar", "≤ 1%", comp_rates["5 points above the bar"] <= 0.01),
    ]
    for name, limit in (("always first", 20), ("speeder", 15), ("random clicker", 60)):
        median = medians[name]
        goals.append(("any rule", name, f"median answers to the first decision ≤ {limit}",
                      median is not None and median <= limit))
    # The plain percentiles: the nominal level whose calibrated percentiles are 2.5 and 97.5.
    level = 1 - 0.05 / TAIL_SHARE if args.plain else 0.95
    coverage, intervals = competence_coverage(args.mace_studies, args.replicates, args.seed, level)
    goals.append(("competence interval", f"{intervals} workers", "95% interval covers ≥ 94%", coverage >= 0.94))

    names = [w.name for w in workers(g["threshold"], f["threshold"])]
    print(f"Pairwise, N = {PER_ITEM} answers per item, {GOLD_RATE:.0%} gold; a study is {STUDY_ANSWERS} answers "
          f"({STUDY_GOLD} gold); {args.studies} studies per worker; rules at their defaults "
          f"(gold bar {g['threshold']}, too fast {f['threshold']} of answers under "
          f"{f['share_of_median']} x median, position bias +{DEFAULTS['position_bias']['threshold']} over 1/2; "
          f"confidence 0.95).\n")
    c = DEFAULTS["competence"]
    comp_setup = (f"competence (bar {c['threshold']}, after {c['min_answers']} answers): MACE after every {RUN_EVERY} "
                  f"answers to real items, {DEFAULT_REPLICATES} replicates, among {CROWD} honest workers, over the "
                  f"first {min(args.competence_studies, args.studies)} studies of each worker (MACE is costly); "
                  f"its medians are over those studies")
    print(f"Competence: {comp_setup}.\n")
    print("| Worker | Gold accuracy | Too fast | Position bias | Competence | Median answers to the first decision |")
    print("|---|---:|---:|---:|---:|---:|")
    for name in names:
        median = medians[name]
        cells = [f"{100 * rates[(rule, name)]:.2f}%" for rule in ("gold accuracy", "too fast", "position bias")]
        comp = f"{100 * comp_rates[name]:.2f}%" if name in comp_rates else "not simulated"
        shown = "never (most studies)" if median is None else f"{median:.0f}"
        print(f"| {name} | {' | '.join(cells)} | {comp} | {shown} |")
        rows.append({"worker": name, "gold": cells[0], "too_fast": cells[1], "position": cells[2],
                     "competence": comp, "median": shown})
    kind = "plain 2.5th-97.5th percentile" if args.plain else "nominal 95% (1st-99th percentile)"
    print(f"\nMACE competence: {args.replicates} replicates, {args.mace_studies} studies, {intervals} workers: "
          f"{100 * coverage:.1f}% of {kind} intervals cover the true competence.\n")
    print("| Goal | Worker | Target | Met |")
    print("|---|---|---|---|")
    for rule, who, target, met in goals:
        print(f"| {rule} | {who} | {target} | {'yes' if met else 'no'} |")
    seconds = time.perf_counter() - started
    print(f"\n{seconds:.0f} s; seed {args.seed}.")
    if args.write and not args.plain:
        table = {"command": COMMAND, "studies": args.studies, "seed": args.seed,
                 "setup": f"N = {PER_ITEM} answers per item, {GOLD_RATE:.0%} gold, {STUDY_ANSWERS} answers "
                          f"({STUDY_GOLD} gold) a study, {args.studies} studies per worker, rules at their defaults; "
                          f"{comp_setup}",
                 "competence_studies": min(args.competence_studies, args.studies),
                 "workers": rows, "competence": {"replicates": args.replicates, "workers": intervals,
                                                 "coverage": f"{100 * coverage:.1f}%"},
                 "goals": [{"rule": r, "worker": w, "goal": t, "met": "yes" if m else "no"} for r, w, t, m in goals]}
        module_path = TABLE_MODULE
        module_path.write_text(
            '"""How often the quality rules err, as measured by ``bench/quality/rules_simulation.py --write``\n'
            '(written by it; the rules page shows it)."""\n\n'
            "from __future__ import annotations\n\nfrom typing import Any\n\n"
            f"MEASURED: dict[str, Any] | None = {pprint.pformat(table, width=110, sort_dicts=False)}\n\n\n"
            "def error_rates() -> dict[str, Any] | None:\n    return MEASURED\n")
        print(f"written to {module_path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
