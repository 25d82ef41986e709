"""A key-point matching baseline: TF-IDF cosine between each argument and the key points of its
topic and stance.

Per topic, a TF-IDF model (scikit-learn's ``TfidfVectorizer``: lowercase words without
scikit-learn's English stop words, Snowball English stems, sublinear term frequency,
L2-normalised rows; chosen on the train split, where stems beat plain words and unigrams beat
unigrams with bigrams) is fitted on the topic's arguments and key points of both stances,
so that a word's weight reflects how rare it is in that debate. An argument's score for a key
point is the cosine of their vectors, in [0, 1]. It needs no training labels, so it gives a
researcher a reference score and a pre-annotation on any corpus. Predictions come in the shared
task's JSON shape, every argument with its topic and stance's key points in the key points
file's order (an argument whose group has no key point gets an empty object).

    python -m analysis.methods.keypoint_match DATA_DIR [--subset dev] [--model tfidf] > predictions.json
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd
import snowballstemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer

from analysis.methods.keypoint_eval import (
    KeyPointInputError,
    Predictions,
    check_arguments,
    check_key_points,
    read_arguments,
    read_key_points,
)

MODELS = ("tfidf",)
_WORD = re.compile(r"(?:[^\W_]|')+")
_STEMMER = snowballstemmer.stemmer("english")


def tokens(text: str) -> list[str]:
    """Lowercase words, English stop words dropped, stemmed; apostrophes inside words kept."""
    words = (w.strip("'") for w in _WORD.findall(text.lower()))
    return [_STEMMER.stemWord(w) for w in words if w and w not in ENGLISH_STOP_WORDS]


def match_tfidf(*, arguments: pd.DataFrame, key_points: pd.DataFrame) -> Predictions:
    """TF-IDF cosine of every argument against the key points of its topic and stance."""
    arguments = check_arguments(arguments)
    key_points = check_key_points(key_points)
    predictions: Predictions = {}
    for topic, topic_args in arguments.groupby("topic", sort=False):
        topic_kps = key_points[key_points["topic"] == topic]
        vectorizer = TfidfVectorizer(analyzer=tokens, sublinear_tf=True)
        matrix = vectorizer.fit_transform(
            [*topic_args["argument"].tolist(), *topic_kps["key_point"].tolist()]
        )
        arg_vectors = matrix[: len(topic_args)]
        kp_vectors = matrix[len(topic_args):]
        arg_stance = topic_args["stance"].to_numpy()
        kp_stance = topic_kps["stance"].to_numpy()
        kp_ids = topic_kps["key_point_id"].tolist()
        similarity = np.asarray((arg_vectors @ kp_vectors.T).todense())
        for row, (arg_id, stance) in enumerate(zip(topic_args["arg_id"], arg_stance, strict=True)):
            columns = np.flatnonzero(kp_stance == stance)
            predictions[arg_id] = {
                kp_ids[column]: _unit(float(similarity[row, column])) for column in columns
            }
    return predictions


def _unit(value: float) -> float:
    # Rounding error can push a cosine of identical texts just above 1.
    return min(max(value, 0.0), 1.0)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m analysis.methods.keypoint_match",
        description="Score every argument against its topic and stance's key points; prints "
                    'the predictions JSON {"arg_id": {"key_point_id": score}}.',
    )
    parser.add_argument("data_dir", type=Path, help="folder with arguments_/key_points_<subset>.csv")
    parser.add_argument("--subset", default="dev", help="file name suffix (default: dev)")
    parser.add_argument("--model", choices=MODELS, default="tfidf", help="the matcher (default: tfidf)")
    args = parser.parse_args(argv)
    try:
        arguments = read_arguments(args.data_dir / f"arguments_{args.subset}.csv")
        key_points = read_key_points(args.data_dir / f"key_points_{args.subset}.csv")
    except KeyPointInputError as error:
        print(f"error: {error}".replace("\n", " "), file=sys.stderr)
        return 2
    json.dump(match_tfidf(arguments=arguments, key_points=key_points), sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
