"""Word error rate on hand-computed examples, per response and per group."""

from __future__ import annotations

import math

import numpy as np
import pytest

from analysis.methods.content_scores import corpus_word_error_rate, word_edits, word_error_rate


def test_substitution_deletion_insertion_each_cost_one():
    # the cat sat on the mat -> the bat sat the mat mat: 1 substitution (cat/bat), 1 deletion
    # (on), 1 insertion (mat): 3 edits over 6 words.
    assert word_error_rate("The cat sat on the mat.", "the bat sat the mat mat") == pytest.approx(
        3 / 6
    )


def test_case_and_punctuation_are_not_errors():
    assert word_error_rate("Hello, world!", "hello world") == 0.0


def test_empty_hypothesis_deletes_every_word_and_empty_reference_is_refused():
    assert word_error_rate("one two three", "") == 1.0
    assert word_error_rate("one", "one two three four") == 3.0
    with pytest.raises(ValueError, match="no word"):
        word_error_rate("...", "words")


def levenshtein(a: list[int], b: list[int]) -> int:
    table = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            table[i][j] = min(
                table[i - 1][j] + 1,
                table[i][j - 1] + 1,
                table[i - 1][j - 1] + (a[i - 1] != b[j - 1]),
            )
    return table[-1][-1]


def test_vectorised_edits_equal_the_textbook_table():
    rng = np.random.default_rng(3)
    for _ in range(200):
        a = rng.integers(0, 4, size=rng.integers(0, 12)).tolist()
        b = rng.integers(0, 4, size=rng.integers(0, 12)).tolist()
        assert word_edits(a, b) == levenshtein(a, b)


def test_corpus_rate_sums_edits_over_reference_words_per_group():
    table = corpus_word_error_rate(
        references=["a b c d", "a b", "x y z", "..."],
        hypotheses=["a c d", "a b e f", "x y z", "x"],
        groups=["summary", "summary", "narration", "narration"],
    ).set_index("group")
    # summary: 1 + 2 edits over 4 + 2 words; narration: 0 + 1 edits over 3 + 0 words.
    assert table.loc["summary", "wer"] == pytest.approx(3 / 6)
    assert table.loc["narration", "wer"] == pytest.approx(1 / 3)
    assert table.loc["summary", "n_responses"] == 2
    assert table.loc["narration", "edits"] == 1
    whole = corpus_word_error_rate(references=["a b"], hypotheses=["b"])
    assert whole["wer"].tolist() == [0.5]
    empty = corpus_word_error_rate(references=[""], hypotheses=["b"], groups=["g"])
    assert math.isnan(empty["wer"].iloc[0])
