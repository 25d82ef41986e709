"""Content scores of 100,000 responses against 4 references each, and rouge-score on the same work.

    .venv/bin/python bench/content_scores.py [--responses 100000] [--rouge-subset 10000] [--seed 0]
        [--repeat 3] [--lemmatize]

Synthetic data: 50 prompts, 4 references and 2,000 responses each (for 100,000 responses); texts
of 60–150 words drawn from a 5,000-word vocabulary with Zipf-distributed frequencies (exponent
1.1). Times ``content_scores`` (all of base, new and cva) on every response, and ``rouge-score``'s
``RougeScorer(["rouge1"])`` recall against each response's first reference (``base`` alone) on a
subset, scaled linearly to the full count; checks that both give the same ``base``. Ours is
timed ``--repeat`` times (best and median printed); the ratio uses the best.

``--lemmatize`` also times the first lemma (it loads the dictionary), ours with English lemmas on
the same work (the lemma cache cleared before each run), and the cost of a lemma per distinct
word: every word form of ``simplemma``'s English dictionary that is a run of letters and
digits, cold cache. The synthetic words are
mostly not English, so the first figure is the cost of looking 5,000 unknown words up; the
second scales to a real vocabulary.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from analysis.methods.content_scores import content_scores  # noqa: E402
from analysis.methods.content_scores.tokens import lemma  # noqa: E402

N_PROMPTS = 50
N_REFERENCES = 4
VOCABULARY = 5_000


def synthetic(n_responses: int, seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    words = np.array(
        [
            "".join(rng.choice(letters, size=rng.integers(2, 10))) + str(i % 7)
            for i in range(VOCABULARY)
        ]
    )
    weights = 1.0 / np.arange(1, VOCABULARY + 1) ** 1.1
    weights /= weights.sum()

    def texts(n: int) -> list[str]:
        lengths = rng.integers(60, 151, size=n)
        drawn = words[rng.choice(VOCABULARY, size=int(lengths.sum()), p=weights)]
        cuts = np.cumsum(lengths)[:-1]
        return [" ".join(part) + "." for part in np.split(drawn, cuts)]

    references = pd.DataFrame(
        {
            "prompt_id": np.repeat([f"p{i}" for i in range(N_PROMPTS)], N_REFERENCES),
            "reference_id": [f"r{i}" for i in range(N_PROMPTS * N_REFERENCES)],
            "text": texts(N_PROMPTS * N_REFERENCES),
        }
    )
    responses = pd.DataFrame(
        {
            "response_id": np.arange(n_responses),
            "prompt_id": [f"p{i % N_PROMPTS}" for i in range(n_responses)],
            "text": texts(n_responses),
        }
    )
    return references, responses


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=100_000)
    parser.add_argument("--rouge-subset", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--lemmatize", action="store_true", help="time lemmatisation as well")
    args = parser.parse_args()
    references, responses = synthetic(args.responses, args.seed)
    words = responses["text"].str.count(" ") + 1
    print(
        f"{len(responses):,} responses ({words.mean():.0f} words on average), "
        f"{N_PROMPTS} prompts × {N_REFERENCES} references"
    )
    times = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        ours = content_scores(references=references, responses=responses, k=N_REFERENCES)
        times.append(time.perf_counter() - start)
    ours_seconds = min(times)
    print(
        f"content_scores (base, new, cva): {ours_seconds:.2f} s "
        f"(best of {args.repeat}; median {np.median(times):.2f} s); "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}"
    )
    if args.lemmatize:
        time_lemmas(references, responses, args.repeat, plain=ours_seconds)

    from rouge_score import rouge_scorer

    scorer = rouge_scorer.RougeScorer(["rouge1"])
    first = references.groupby("prompt_id", sort=False)["text"].first()
    subset = responses.iloc[: args.rouge_subset]
    start = time.perf_counter()
    recall = [
        scorer.score(first[prompt], text)["rouge1"].recall
        for prompt, text in zip(subset["prompt_id"], subset["text"], strict=True)
    ]
    rouge_seconds = (time.perf_counter() - start) * len(responses) / len(subset)
    scaled = (
        "" if len(subset) == len(responses) else f" (timed on {len(subset):,}, scaled linearly)"
    )
    print(f"rouge-score rouge1 recall (base only): {rouge_seconds:.2f} s{scaled}")
    difference = np.abs(ours["base"].to_numpy()[: len(subset)] - np.asarray(recall)).max()
    print(f"largest difference in base: {difference:.2e}")
    print(f"ratio rouge-score / content_scores: {rouge_seconds / ours_seconds:.1f}×")


def time_lemmas(
    references: pd.DataFrame, responses: pd.DataFrame, repeat: int, *, plain: float
) -> None:
    lemma.cache_clear()
    start = time.perf_counter()
    lemma("went")
    print(f"first lemma, loading the English dictionary: {time.perf_counter() - start:.2f} s")
    times = []
    for _ in range(repeat):
        lemma.cache_clear()
        start = time.perf_counter()
        content_scores(references=references, responses=responses, k=N_REFERENCES, lemmatize=True)
        times.append(time.perf_counter() - start)
    best = min(times)
    print(
        f"content_scores lemmatised: {best:.2f} s (best of {repeat}; median "
        f"{np.median(times):.2f} s; cold lemma cache each run): {best - plain:+.2f} s, "
        f"{100 * (best - plain) / plain:+.0f} %"
    )
    from simplemma.strategies.dictionaries.dictionary_factory import DefaultDictionaryFactory

    forms = DefaultDictionaryFactory().get_dictionary("en").keys()
    english = [form for form in forms if form.isascii() and form.isalnum() and form.islower()]
    lemma.cache_clear()
    start = time.perf_counter()
    for word in english:
        lemma(word)
    seconds = time.perf_counter() - start
    print(
        f"lemmas of {len(english):,} English word forms: {seconds:.2f} s "
        f"({1e6 * seconds / len(english):.1f} µs per distinct word)"
    )


if __name__ == "__main__":
    main()
