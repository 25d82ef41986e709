"""Lemmatisation as an option of the words, of the content scores and of the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from analysis.methods.content_scores import content_scores, tokenize, tokenize_texts
from analysis.methods.content_scores.cli import main


def frames(reference: str, response: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    return (
        pd.DataFrame([("p", "1", reference)], columns=["prompt_id", "reference_id", "text"]),
        pd.DataFrame([("r", "p", response)], columns=["response_id", "prompt_id", "text"]),
    )


def test_words_become_their_lemmas():
    assert tokenize("The children went; studies!", lemmatize=True) == [
        "the",
        "child",
        "go",
        "study",
    ]
    assert tokenize("The children went; studies!") == ["the", "children", "went", "studies"]


def test_lemmas_share_one_vocabulary_across_texts():
    tokens = tokenize_texts(["went goes", "go GOING Goes"], lemmatize=True)
    assert list(tokens.vocabulary) == ["go"]
    assert tokens.lengths.tolist() == [2, 3]


def test_stop_words_are_matched_on_the_lemma_and_stemming_comes_last():
    # "did" -> "do" is on the stop list, "made" -> "make" is not (though "made" is, "did" is not).
    assert tokenize("He did studies made", lemmatize=True, stopwords=True) == ["study", "make"]
    assert tokenize("He did studies made", stopwords=True) == ["did", "studies"]
    # "studies" -> "study" -> Porter "studi".
    assert tokenize("was studies", lemmatize=True, stopwords=True, stem=True) == ["studi"]
    # Without the options "was" stays (three letters are never stemmed).
    assert tokenize("was studies", stem=True) == ["was", "studi"]


def test_a_lemma_outside_the_word_rules_leaves_the_word_as_it_is():
    # The lemma list spells "1850s" as "eighteen-fifties" and "april" as "April": a word stays
    # one run of lower-case letters and digits.
    assert tokenize("1850s april", lemmatize=True) == ["1850s", "april"]


def test_lemmatisation_raises_base_and_new_for_inflected_matches():
    references, responses = frames("a child goes", "the children went")
    plain = content_scores(references=references, responses=responses).iloc[0]
    lemmas = content_scores(references=references, responses=responses, lemmatize=True).iloc[0]
    assert plain["base"] == 0.0 and plain["new"] == 0.0
    # child and go match: 2 of the reference's 3 tokens and 2 of its 3 types.
    assert lemmas["base"] == pytest.approx(2 / 3)
    assert lemmas["new"] == pytest.approx(2 / 3)
    assert lemmas["cva"] > plain["cva"]


def test_the_command_line_flag(tmp_path: Path, capsys):
    references, responses = tmp_path / "references.csv", tmp_path / "responses.csv"
    references.write_text("prompt_id,reference_id,text\np1,a,a child goes\n")
    responses.write_text("response_id,prompt_id,text\nr1,p1,the children went\n")
    assert main([str(references), str(responses)]) == 0
    assert json.loads(capsys.readouterr().out)["base"] == 0.0
    assert main([str(references), str(responses), "--lemmatize"]) == 0
    assert json.loads(capsys.readouterr().out)["base"] == pytest.approx(2 / 3)
