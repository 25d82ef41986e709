"""ROUGE-1 (base, new) and the TF-IDF cosine on hand-computed examples and against rouge-score/scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from nltk.stem import porter
from rouge_score import rouge_scorer
from sklearn.feature_extraction.text import TfidfVectorizer

from analysis.methods.content_scores import ContentScoreError, content_scores, tokenize


def frames(references: list[tuple[str, str, str]], responses: list[tuple[str, str, str]]):
    return (
        pd.DataFrame(references, columns=["prompt_id", "reference_id", "text"]),
        pd.DataFrame(responses, columns=["response_id", "prompt_id", "text"]),
    )


def test_base_counts_tokens_against_the_first_reference_in_file_order():
    # The first reference in row order is "z", although "a" sorts first.
    references, responses = frames(
        [("p", "z", "The cat sat on the mat."), ("p", "a", "A dog sat.")],
        [("r1", "p", "the cat, the cat!"), ("r2", "p", "dog sat on a log")],
    )
    scores = content_scores(references=references, responses=responses).set_index("response_id")
    # r1: the min(2, 2) + cat min(2, 1) = 3 of the first reference's 6 tokens.
    assert scores.loc["r1", "base"] == pytest.approx(3 / 6)
    # r2: sat + on = 2 of 6.
    assert scores.loc["r2", "base"] == pytest.approx(2 / 6)


def test_new_counts_types_over_the_first_k_references():
    references, responses = frames(
        [
            ("p", "1", "the cat sat on the mat"),  # types: the cat sat on mat (5)
            ("p", "2", "a dog sat"),  # a dog sat (3)
            ("p", "3", "the dog ran away"),  # the dog ran away (4)
        ],
        [("r", "p", "The dog sat on a log, the dog.")],  # types: the dog sat on a log
    )
    by_k = {
        k: content_scores(references=references, responses=responses, k=k)["new"].iloc[0]
        for k in (1, 2, 3, 4)
    }
    # ref1 ∩ = the sat on (3); ref2 ∩ = a dog sat (3); ref3 ∩ = the dog (2).
    assert by_k[1] == pytest.approx(3 / 5)
    assert by_k[2] == pytest.approx((3 + 3) / (5 + 3))
    assert by_k[3] == pytest.approx((3 + 3 + 2) / (5 + 3 + 4))
    assert by_k[4] == by_k[3]  # a prompt with fewer references uses those it has


def test_a_response_or_reference_without_words_scores_zero():
    references, responses = frames(
        [("p", "1", "words here"), ("q", "1", "...")],
        [("silent", "p", ""), ("empty-reference", "q", "words")],
    )
    scores = content_scores(references=references, responses=responses)
    assert scores[["base", "new", "cva"]].to_numpy().tolist() == [[0.0, 0.0, 0.0]] * 2


def test_stop_words_and_stemming_are_options():
    references, responses = frames(
        [("p", "1", "The players played")], [("r", "p", "a player plays")]
    )
    plain = content_scores(references=references, responses=responses)["base"].iloc[0]
    stemmed = content_scores(references=references, responses=responses, stem=True)["base"].iloc[0]
    both = content_scores(references=references, responses=responses, stem=True, stopwords=True)
    assert plain == 0.0
    # Porter: players -> player, played -> plai, plays -> plai; "the" stays unmatched.
    assert stemmed == pytest.approx(2 / 3)
    assert both["base"].iloc[0] == pytest.approx(1.0)  # "the" dropped from the reference
    assert tokenize("The players played", stem=True, stopwords=True) == ["player", "plai"]


def test_tokens_are_those_of_rouge_score():
    text = "Don't STOP—it's 3.5 km (naïve) e-mail_x İstanbul \x01 K"
    from rouge_score import tokenize as rouge_tokenize

    assert tokenize(text) == rouge_tokenize.tokenize(text, None)


def random_texts(rng: np.random.Generator, vocabulary: list[str], n: int) -> list[str]:
    punctuation = np.array([" ", " ", " ", ", ", ". ", "-", " (", "'"])
    texts = []
    for _ in range(n):
        words = rng.choice(vocabulary, size=rng.integers(0, 40))
        cased = [w.upper() if rng.random() < 0.1 else w for w in words]
        glue = rng.choice(punctuation, size=len(cased))
        texts.append("".join(w + g for w, g in zip(cased, glue, strict=True)))
    return texts


@pytest.mark.parametrize("stem", [False, True])
def test_base_equals_rouge_score_rouge1_recall(stem):
    rng = np.random.default_rng(7)
    vocabulary = [
        "plays", "played", "running", "runs", "cats", "cat", "connection", "connected", "the",
        "generously", "happiness", "relational", "a", "is", "on", "42", "x9", "conditional",
        "hopping", "agreed", "feed", "sized", "motoring", "electrical", "adjustable", "says",
    ]  # fmt: skip
    nltk_stemmer = porter.PorterStemmer()
    original = porter.PorterStemmer(mode=porter.PorterStemmer.ORIGINAL_ALGORITHM)
    if stem:
        # rouge-score stems with NLTK's extended Porter; ours is Porter's original algorithm.
        # They coincide on words where both give the same stem ("plays", "says" differ).
        assert original.stem("plays") != nltk_stemmer.stem("plays")
        vocabulary = [w for w in vocabulary if original.stem(w) == nltk_stemmer.stem(w)]
        assert len(vocabulary) > 15
    texts = random_texts(rng, vocabulary, 400)
    references = pd.DataFrame({"prompt_id": range(100), "reference_id": 0, "text": texts[:100]})
    responses = pd.DataFrame(
        {"response_id": range(300), "prompt_id": np.arange(300) % 100, "text": texts[100:]}
    )
    ours = content_scores(references=references, responses=responses, stem=stem)["base"]
    scorer = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=stem)
    theirs = [
        scorer.score(texts[prompt], text)["rouge1"].recall
        for prompt, text in zip(responses["prompt_id"], responses["text"], strict=True)
    ]
    np.testing.assert_allclose(ours.to_numpy(), theirs, rtol=0, atol=1e-12)
    assert (ours > 0).sum() > 200  # the texts overlap: the comparison is not all zeros


def test_our_stemmer_is_porters_original_algorithm():
    original = porter.PorterStemmer(mode=porter.PorterStemmer.ORIGINAL_ALGORITHM)
    words = (
        "caresses ponies sensational generalization plays played trying traditionally oscillators"
    )
    expected = [w if len(w) <= 3 else original.stem(w) for w in words.split()]
    assert tokenize(words, stem=True) == expected


def test_cva_is_the_tfidf_cosine_fitted_per_prompt():
    references, responses = frames(
        [
            ("p", "1", "the cat sat on the mat"),
            ("p", "2", "a cat and a dog"),
            ("p", "3", "not used with k=2"),
            ("q", "1", "birds fly south in winter"),
        ],
        [
            ("r1", "p", "the cat the cat sat"),
            ("r2", "p", "a dog on a mat"),
            ("r3", "p", "nothing in common"),
            ("r4", "q", "in winter birds fly"),
        ],
    )
    ours = content_scores(references=references, responses=responses, k=2).set_index("response_id")
    for prompt, group in responses.groupby("prompt_id"):
        refs = references[references["prompt_id"] == prompt]["text"].tolist()[:2]
        vectorizer = TfidfVectorizer(
            binary=True, norm=None, tokenizer=tokenize, lowercase=False, token_pattern=None
        )
        matrix = vectorizer.fit_transform(refs + group["text"].tolist()).toarray()
        reference = matrix[: len(refs)].sum(axis=0)
        for row, response_id in zip(matrix[len(refs) :], group["response_id"], strict=True):
            norm = np.linalg.norm(row) * np.linalg.norm(reference)
            expected = float(row @ reference / norm) if norm else 0.0
            assert ours.loc[response_id, "cva"] == pytest.approx(expected, abs=1e-12)
    assert ours.loc["r3", "cva"] == 0.0
    assert 0 < ours.loc["r1", "cva"] < 1


def test_output_keeps_the_responses_order_and_ids():
    references, responses = frames([("p", "1", "x y")], [("b", "p", "x"), ("a", "p", "y z")])
    scores = content_scores(references=references, responses=responses)
    assert list(scores.columns) == ["response_id", "base", "new", "cva"]
    assert scores["response_id"].tolist() == ["b", "a"]


@pytest.mark.parametrize(
    ("references", "responses", "table", "row", "column"),
    [
        ([("p", "1", "x")], [("a", "p", "x"), ("b", "missing", "x")], "responses", 1, "prompt_id"),
        ([("p", "1", "x"), ("p", "1", "y")], [("a", "p", "x")], "references", 1, "reference_id"),
        ([("p", "1", "x")], [("a", "p", "x"), ("a", "p", "y")], "responses", 1, "response_id"),
        ([("p", "1", "x")], [("a", "p", math.nan)], "responses", 0, "text"),
    ],
)
def test_bad_input_names_table_row_and_column(references, responses, table, row, column):
    refs, resps = frames(references, responses)
    with pytest.raises(ContentScoreError) as raised:
        content_scores(references=refs, responses=resps)
    assert (raised.value.table, raised.value.row, raised.value.column) == (table, row, column)


def test_missing_columns_and_bad_k_are_refused():
    references, responses = frames([("p", "1", "x")], [("a", "p", "x")])
    with pytest.raises(ContentScoreError, match="missing column"):
        content_scores(references=references.drop(columns="text"), responses=responses)
    with pytest.raises(ValueError, match="positive integer"):
        content_scores(references=references, responses=responses, k=0)
