"""MACE's memory follows the annotations: many distinct labels run in bounded memory, a run too
large for ``max_memory`` is refused before it allocates, and posteriors stay sparse."""

import subprocess
import sys
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from analysis.methods.mace import MaceTooLarge, mace, memory_estimate
from analysis.methods.mace import layout as mace_layout
from analysis.methods.mace.sparse import sparse_rows

PROJECT = Path(__file__).resolve().parents[4]
MB = 1 << 20


def every_label_distinct(n_items=3000, n_workers=50):
    """The hostile case: every worker labels every item, and no two labels are the same."""
    items = np.repeat(np.arange(n_items), n_workers)
    workers = np.tile(np.arange(n_workers), n_items)
    return items, workers, np.arange(n_items * n_workers)


def traced(call):
    tracemalloc.start()
    try:
        value = call()
        return value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_every_label_distinct_runs_in_memory_that_follows_the_annotations():
    # 3,000 items x 150,000 labels: dense posteriors alone would be 3.6 GB, the restarts' tables
    # many times that. Sparse, the run stays within its estimate (~0.3 GB).
    items, workers, labels = every_label_distinct()
    result, peak = traced(
        lambda: mace(items, workers, labels, iterations=5, restarts=8, threads=2, seed=0)
    )
    estimate = memory_estimate(
        n_annotations=len(items), n_items=3000, n_workers=50, n_labels=len(labels),
        restarts=8, threads=2,
    )
    assert peak <= estimate < 400 * MB, (peak, estimate)
    posteriors = result.item_posteriors
    assert posteriors.shape == (3000, 150000) and len(posteriors.values) == 150000
    np.testing.assert_allclose(posteriors.sums(), 1.0)
    # Each item's label is one of the 50 it was given, never one of the 149,950 it was not.
    assert np.array_equal(result.labels // 50, np.arange(3000))
    strategies = result.worker_strategies
    assert strategies.shape == (50, 150000) and len(strategies.values) == 150000
    # Variational weights exp(E[log theta]): a worker's sum to less than one.
    assert np.all((strategies.sums() > 0.5) & (strategies.sums() < 1.0))


def test_a_run_too_large_is_refused_before_it_allocates():
    items, workers, labels = every_label_distinct()
    needed = memory_estimate(
        n_annotations=len(items), n_items=3000, n_workers=50, n_labels=len(labels),
        restarts=10, threads=2,
    )
    with pytest.raises(MaceTooLarge) as refusal:
        traced(lambda: mace(items, workers, labels, threads=2, max_memory=needed - 1))
    message = str(refusal.value)
    assert message.startswith(
        "MACE on 150,000 annotations (3,000 items, 50 workers, 150,000 labels) would need about "
    )
    assert f"more than the {mace_layout.format_bytes(needed - 1)} allowed" in message
    assert "max_memory (--max-memory" in message and "threads=1, --threads 1" in message
    assert refusal.value.needed == needed and refusal.value.blocks == 2
    # Refused before anything the size of the data was allocated.
    _, peak = traced(lambda: pytest.raises(MaceTooLarge, mace, items, workers, labels, max_memory=MB))
    assert peak < MB
    # Not a MemoryError: Celery re-raises those and takes the worker process down.
    assert not isinstance(refusal.value, MemoryError) and isinstance(refusal.value, ValueError)
    with pytest.raises(ValueError, match="max_memory must be a positive number of bytes, got 0"):
        mace(items[:10], workers[:10], labels[:10], max_memory=0)


def test_the_estimate_bounds_what_a_run_takes():
    rng = np.random.default_rng(1)
    # Few labels, long worker segments; and a run that overflows into log space (more buffers).
    items = np.repeat(np.arange(20000), 5)
    workers = np.concatenate([rng.choice(300, 5, replace=False) for _ in range(20000)])
    labels = rng.integers(0, 3, len(items))
    truth = rng.integers(0, 2, 300)
    loud = (np.repeat(np.arange(300), 400), np.tile(np.arange(400), 300))
    for (i, w, lab), options in [
        ((items, workers, labels), {"iterations": 5, "restarts": 8, "threads": 2}),
        ((*loud, truth[loud[0]]), {"em": True, "iterations": 5, "restarts": 2, "threads": 1}),
    ]:
        _, peak = traced(lambda: mace(i, w, lab, seed=0, **options))  # noqa: B023
        estimate = memory_estimate(
            n_annotations=len(i), n_items=int(i.max()) + 1, n_workers=int(w.max()) + 1,
            n_labels=int(lab.max()) + 1, restarts=options["restarts"], threads=options["threads"],
        )
        assert peak <= estimate <= 4 * peak, (peak, estimate)


def test_dense_posteriors_are_refused_beyond_max_memory_and_sparse_ones_stay_readable():
    items, workers, labels = every_label_distinct(n_items=200, n_workers=10)
    result = mace(items, workers, labels, iterations=3, restarts=1, seed=0, max_memory=8 * MB)
    # 200 x 2,000 fits in 8 MiB ...
    assert result.posteriors.shape == (200, 2000)
    np.testing.assert_allclose(result.posteriors[7], result.item_posteriors.row(7))
    small = mace(items, workers, labels, iterations=3, restarts=1, seed=0, max_memory=3 * MB)
    # ... not in 3 MiB, while the run itself does.
    with pytest.raises(MaceTooLarge, match=r"a dense 200 x 2,000 matrix would take 3\.1 MiB"):
        small.posteriors  # noqa: B018
    assert small.item_posteriors.row(7).sum() == pytest.approx(1.0)
    # Under EM a worker's strategy sums to one: the labels it gave plus the shared rest.
    em = mace(items, workers, labels, em=True, iterations=3, restarts=1, seed=0)
    np.testing.assert_allclose(em.worker_strategies.sums(), 1.0)
    np.testing.assert_allclose(em.strategies.sum(axis=1), 1.0)
    with pytest.raises(MaceTooLarge, match="a dense 10 x 2,000 matrix .* read the sparse form instead"):
        em.worker_strategies.toarray(max_memory=100_000)


def test_zero_iterations_report_the_starting_point():
    items, workers, labels = every_label_distinct(n_items=30, n_workers=4)
    result = mace(items, workers, labels, iterations=0, restarts=3, seed=0)
    np.testing.assert_allclose(result.worker_strategies.sums(), 1.0)
    np.testing.assert_allclose(result.item_posteriors.sums(), 1.0)
    assert np.isfinite(result.log_likelihood)


def test_more_labels_than_the_full_initial_draw_start_from_the_labels_given(monkeypatch):
    # Past FULL_INIT_DRAWS, strategies start from the labels a worker gave plus the expected
    # weight of the others; the run still finds the truth and the spammers.
    rng = np.random.default_rng(3)
    truth = rng.integers(0, 4, 300)
    items = np.repeat(np.arange(300), 5)
    workers = np.concatenate([rng.choice(8, 5, replace=False) for _ in range(300)])
    good = (workers < 6) & (rng.random(len(items)) < 0.9)
    labels = np.where(workers >= 6, 0, np.where(good, truth[items], rng.integers(0, 4, len(items))))
    full = mace(items, workers, labels, seed=4, em=True)
    monkeypatch.setattr(mace_layout, "FULL_INIT_DRAWS", 0)
    given = mace(items, workers, labels, seed=4, em=True)
    assert not np.array_equal(full.restart_log_likelihoods, given.restart_log_likelihoods)
    for result in (full, given):
        assert (result.labels == truth).mean() > 0.95
        assert set(result.ranking[-2:].tolist()) == {6, 7}


def test_sparse_rows_read_like_the_dense_matrix():
    dense = np.array(
        [
            [0.2, 0.2, 0.6, 0.0],  # listed: 0, 2, 3 (a zero); other: 0.2 at column 1
            [0.25, 0.25, 0.25, 0.25],  # nothing listed: argmax is the first column
            [0.1, 0.3, 0.3, 0.3],  # listed 1 and 3 tie with the other value at column 2
            [0.0, 0.5, 0.5, 0.0],  # listed 0, 1, 2, 3: no other value
            [0.3, 0.3, 0.1, 0.3],  # listed 2, 3; the other value wins the tie at column 0
        ]
    )
    rows = [0, 0, 0, 2, 2, 2, 3, 3, 3, 3, 4, 4]
    columns = [0, 2, 3, 0, 1, 3, 0, 1, 2, 3, 2, 3]
    sparse = sparse_rows(dense.shape, rows, columns, dense[rows, columns], [0.2, 0.25, 0.3, 0.0, 0.3])
    np.testing.assert_array_equal(sparse.toarray(), dense)
    assert sparse.argmax().tolist() == dense.argmax(axis=1).tolist() == [2, 0, 1, 1, 0]
    from analysis.methods.mace import entropy

    np.testing.assert_allclose(sparse.entropy(), entropy(dense), rtol=1e-15)
    np.testing.assert_allclose(sparse.sums(), dense.sum(axis=1))
    np.testing.assert_array_equal(sparse.row(2), dense[2])
    np.testing.assert_allclose((sparse.normalised().toarray() * 2).sum(axis=1), 2.0)
    assert sparse.others().tolist() == [1, 4, 1, 0, 2]
    with pytest.raises(ValueError, match="assignment destination is read-only"):
        sparse.values[0] = 1.0


@pytest.mark.integration
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the peak memory from /proc")
def test_the_command_line_runs_every_label_distinct_in_bounded_memory(tmp_path):
    # The original complaint: this file made the command line ask for 23 GB. Its peak resident
    # memory now, interpreter and libraries included, is a fraction of a gigabyte.
    source = tmp_path / "distinct.csv"
    with source.open("w") as out:
        for item in range(3000):
            out.write(",".join(f"l{item * 50 + worker}" for worker in range(50)) + "\n")
    # The peak resident set of the process's own memory (VmHWM): ru_maxrss would also count the
    # parent's, which Linux carries over into a child across exec.
    measure = (
        "import re, runpy, sys\n"
        "sys.argv = ['mace', *sys.argv[1:]]\n"
        "try:\n"
        "    runpy.run_module('analysis.methods.mace', run_name='__main__')\n"
        "except SystemExit as stop:\n"
        "    code = stop.code\n"
        "status = open('/proc/self/status').read()\n"
        "print(re.search(r'VmHWM:\\s+(\\d+) kB', status).group(1), code, file=sys.stderr)\n"
    )

    def command_line(*options):
        done = subprocess.run(
            [sys.executable, "-c", measure, str(source), "--restarts", "4", "--iterations", "5", *options],
            cwd=tmp_path, env={"PYTHONPATH": str(PROJECT)}, capture_output=True, text=True, timeout=300,
        )
        *messages, last = done.stderr.strip().split("\n")
        kilobytes, code = last.split()
        return int(kilobytes) * 1024, code, "\n".join(messages)

    peak, code, messages = command_line("--entropies", "--prefix", "out")
    assert code == "0", messages
    assert peak < 600 * MB, peak
    assert "3000 lines, 150000 labels, 50 annotators" in messages
    predictions = (tmp_path / "out.prediction").read_text().splitlines()
    assert len(predictions) == 3000 and predictions[0] in {f"l{w}" for w in range(50)}
    peak, code, messages = command_line("--max-memory", "50M", "--prefix", "refused")
    assert code == "1" and peak < 300 * MB
    assert messages.startswith("mace: error: MACE on 150,000 annotations (3,000 items, 50 workers")
    assert "more than the 50.0 MiB allowed" in messages
    assert not (tmp_path / "refused.prediction").exists()
