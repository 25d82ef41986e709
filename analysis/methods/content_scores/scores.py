"""Content scores of responses against a prompt's reference responses: two ROUGE-1 recalls and a cosine.

For a response to prompt ``p`` whose references, in the order given, are ``ref_1, ref_2, …``:

- ``base`` — ROUGE-1 recall over tokens against ``ref_1`` alone:
  ``Σ_w min(count_resp(w), count_ref1(w)) / Σ_w count_ref1(w)`` (0 when ``ref_1`` has no word),
  which is ``rouge_score.rouge_scorer.RougeScorer(["rouge1"]).score(ref_1, response)`` 's recall.
- ``new`` — the study's ROUGE-1 over word types against the first ``k`` references:
  ``Σ_ref |types(ref) ∩ types(resp)| / Σ_ref |types(ref)|`` (0 when the references have no word).
- ``cva`` — the cosine of TF-IDF vectors that count types (tf is 1 for a word the text holds):
  the response against the sum of the first ``k`` references' vectors, so a word weighs by the
  number of those references that hold it. The idf is fitted per prompt on the documents scored
  together: the prompt's first ``k`` references plus every response to it in the call
  (scikit-learn's smoothed idf, ``ln((1 + n) / (1 + df)) + 1``); so ``cva`` of a response
  depends on the other responses of the call, ``base`` and ``new`` do not. 0 for a response with
  no word.

A prompt with fewer than ``k`` references is scored against those it has. Words are those of
:mod:`.tokens` (the ``rouge-score`` tokenizer; ``lemmatize``, ``stopwords`` and ``stem``
options).

Every step is array arithmetic over integer keys ``prompt × vocabulary + word``, looked up in a
dense table while prompts × vocabulary is small, else by ``np.searchsorted`` in the sorted keys:
no Python loop runs per response or per word (the tokenizer's runs per chunk of texts).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd

from analysis.methods.content_scores.tokens import TokenizedTexts, tokenize_texts

REFERENCE_COLUMNS = ("prompt_id", "reference_id", "text")
RESPONSE_COLUMNS = ("response_id", "prompt_id", "text")
SCORE_COLUMNS = ("response_id", "base", "new", "cva")


class ContentScoreError(ValueError):
    """Bad input: names the table, the row (0-based position, None for the whole table), the column."""

    def __init__(
        self, message: str, *, table: str, row: int | None = None, column: str | None = None
    ):
        super().__init__(message)
        self.message = message
        self.table = table
        self.row = row
        self.column = column

    def __str__(self) -> str:
        where = self.table
        if self.row is not None:
            where += f", row {self.row}"
        if self.column is not None:
            where += f", column {self.column!r}"
        return f"{where}: {self.message}"


def content_scores(
    *,
    references: pd.DataFrame,
    responses: pd.DataFrame,
    k: int = 4,
    stem: bool = False,
    stopwords: bool = False,
    lemmatize: bool = False,
) -> pd.DataFrame:
    """``response_id, base, new, cva`` for every row of ``responses``, in its order.

    ``references``: ``prompt_id, reference_id, text`` (row order decides which references are
    first); ``responses``: ``response_id, prompt_id, text``. Raises :class:`ContentScoreError`
    naming the row and column of the first problem.
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise ValueError(f"k (the number of references) must be a positive integer, not {k!r}")
    _check_table(references, REFERENCE_COLUMNS, "references", key=("prompt_id", "reference_id"))
    _check_table(responses, RESPONSE_COLUMNS, "responses", key=("response_id",))
    rank = references.groupby("prompt_id", sort=False).cumcount().to_numpy()
    used = references.loc[rank < k]
    ref_prompt, prompts = pd.factorize(used["prompt_id"])
    resp_prompt = pd.Index(prompts).get_indexer(responses["prompt_id"])
    if (resp_prompt < 0).any():
        row = int(np.flatnonzero(resp_prompt < 0)[0])
        raise ContentScoreError(
            f"prompt {responses['prompt_id'].iloc[row]!r} has no reference",
            table="responses",
            row=row,
            column="prompt_id",
        )
    tokens = tokenize_texts(
        [*used["text"].tolist(), *responses["text"].tolist()],
        stem=stem,
        stopwords=stopwords,
        lemmatize=lemmatize,
    )
    base, new, cva = _scores(
        tokens,
        ref_prompt=ref_prompt.astype(np.int64),
        ref_first=rank[rank < k] == 0,
        resp_prompt=resp_prompt.astype(np.int64),
        n_prompts=len(prompts),
    )
    return pd.DataFrame(
        {
            "response_id": responses["response_id"].to_numpy(),
            "base": base,
            "new": new,
            "cva": cva,
        }
    )


# Lookups go through a dense table while prompts × vocabulary stays under this many cells.
_DENSE_CELLS = 8_000_000


@dataclass(frozen=True)
class _Counts:
    """Sorted unique int64 keys in ``[0, space)`` and how often each occurs."""

    keys: np.ndarray
    counts: np.ndarray
    dense: np.ndarray | None

    @classmethod
    def of(cls, keys: np.ndarray, *, space: int | None) -> _Counts:
        unique, counts = np.unique(keys, return_counts=True)
        dense = None
        if space is not None and space <= _DENSE_CELLS:
            dense = np.zeros(space, dtype=np.int64)
            dense[unique] = counts
        return cls(unique, counts.astype(np.int64), dense)

    def get(self, query: np.ndarray) -> np.ndarray:
        if self.dense is not None:
            return np.asarray(self.dense[query])
        if self.keys.size == 0:
            return np.zeros(query.shape, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.keys, query), self.keys.size - 1)
        return np.where(self.keys[at] == query, self.counts[at], 0)


def _scores(
    tokens: TokenizedTexts,
    *,
    ref_prompt: np.ndarray,
    ref_first: np.ndarray,
    resp_prompt: np.ndarray,
    n_prompts: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_refs, n_resp = ref_prompt.size, resp_prompt.size
    vocabulary = max(int(tokens.vocabulary.size), 1)
    doc = tokens.text_of_token
    is_ref = doc < n_refs
    word = tokens.ids

    # References: token counts of each prompt's first reference; D[p, w] = references holding w.
    ref_doc, ref_word = doc[is_ref], word[is_ref]
    first_token = ref_first[ref_doc]
    space = n_prompts * vocabulary
    first = _Counts.of(
        ref_prompt[ref_doc[first_token]] * vocabulary + ref_word[first_token], space=space
    )
    first_length = np.bincount(first.keys // vocabulary, first.counts, minlength=n_prompts)
    ref_types = np.unique(ref_doc * vocabulary + ref_word)
    holding = _Counts.of(
        ref_prompt[ref_types // vocabulary] * vocabulary + ref_types % vocabulary, space=space
    )
    type_total = np.bincount(holding.keys // vocabulary, holding.counts, minlength=n_prompts)

    # Responses: each (response, word) once, with its count.
    resp_tokens = _Counts.of((doc[~is_ref] - n_refs) * vocabulary + word[~is_ref], space=None)
    resp = resp_tokens.keys // vocabulary
    key = resp_prompt[resp] * vocabulary + resp_tokens.keys % vocabulary

    overlap = np.bincount(resp, np.minimum(resp_tokens.counts, first.get(key)), minlength=n_resp)
    base = _ratio(overlap, first_length[resp_prompt])
    held = holding.get(key)
    new = _ratio(np.bincount(resp, held, minlength=n_resp), type_total[resp_prompt])

    # TF-IDF over types, idf per prompt over its references in use and its responses.
    resp_df = _Counts.of(key, space=space)
    n_docs = np.bincount(ref_prompt, minlength=n_prompts) + np.bincount(
        resp_prompt, minlength=n_prompts
    )

    def idf(keys: np.ndarray, df: np.ndarray) -> np.ndarray:
        n = n_docs[keys // vocabulary]
        return np.asarray(np.log((1.0 + n) / (1.0 + df)) + 1.0)

    idf_resp = idf(key, held + resp_df.get(key))
    idf_ref = idf(holding.keys, holding.counts + resp_df.get(holding.keys))
    dot = np.bincount(resp, held * idf_resp**2, minlength=n_resp)
    resp_norm = np.sqrt(np.bincount(resp, idf_resp**2, minlength=n_resp))
    ref_norm = np.sqrt(
        np.bincount(
            holding.keys // vocabulary, (holding.counts * idf_ref) ** 2, minlength=n_prompts
        )
    )
    cva = _ratio(dot, resp_norm * ref_norm[resp_prompt])
    return base, new, cva


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros(numerator.shape, dtype=float)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _check_table(
    frame: pd.DataFrame, columns: tuple[str, ...], table: str, *, key: tuple[str, ...]
) -> None:
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise ContentScoreError(
            f"missing column(s) {', '.join(missing)}; needs {', '.join(columns)}",
            table=table,
            column=missing[0],
        )
    for column in columns:
        values = frame[column]
        bad = values.isna().to_numpy().copy()
        if column == "text":
            bad |= ~values.map(lambda value: isinstance(value, str)).to_numpy(dtype=bool)
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            what = "text" if column == "text" else "a value"
            raise ContentScoreError(f"needs {what}", table=table, row=row, column=column)
    duplicated = frame.duplicated(list(key)).to_numpy()
    if duplicated.any():
        row = int(np.flatnonzero(duplicated)[0])
        value: Hashable = (
            tuple(frame[list(key)].iloc[row]) if len(key) > 1 else frame[key[0]].iloc[row]
        )
        raise ContentScoreError(
            f"{' and '.join(key)} {value!r} repeats an earlier row",
            table=table,
            row=row,
            column=key[-1],
        )
