"""Gold datasets of a finished pairwise gold run, in the formats of the UKPConvArg1 release.

- ``strict.tsv`` / ``all.tsv``: ``#id label a1 a2`` (pair id, gold label, the two argument texts
  with line breaks written `` <br/> ``); Strict holds the DAG-consistent a1/a2 pairs, All every
  pair MACE labelled (including ``equal``);
- ``rank.tsv``: ``#id rank argument`` (argument id, PageRank with five decimals — higher is less
  convincing — and text), by topic, most convincing first;
- ``full.json`` / ``full.jsonl``: every pair with its votes (worker, label, reason, competence),
  weight, MACE entropy and why it was kept or dropped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, cast

from analysis.frames import annotation_frame
from analysis.models import AnalysisRun
from annotation.models import Item
from annotation.spreadsheet import safe_cell
from task_types.pairwise.report import REFERENCE_OPTION, REFERENCES
from task_types.pairwise.selectors import keeps_pairs_apart, run_pairs, run_texts

GOLD_FILES = {
    "strict.tsv": "text/tab-separated-values",
    "all.tsv": "text/tab-separated-values",
    "rank.tsv": "text/tab-separated-values",
    "full.json": "application/json",
    "full.jsonl": "application/x-ndjson",
}


def _flat(text: str) -> str:
    return " <br/> ".join(text.replace("\t", " ").replace("\r", "").split("\n"))


def _tsv_line(*cells) -> str:
    """One TSV line; text cells a spreadsheet would run as formulas are neutralised."""
    return "\t".join(str(safe_cell(c)) for c in cells) + "\n"


def _argument_texts(run: AnalysisRun) -> dict[str, str]:
    """Argument id -> text as the run saw them (runs stored before texts were kept with the run:
    as the items show them now)."""
    if keeps_pairs_apart(run):
        return run_texts(run)
    texts = {}
    for payload in Item.objects.filter(project=run.project).values_list("payload", flat=True).iterator(chunk_size=5000):
        for side in ("arg1", "arg2"):
            texts[payload[side]["id"]] = payload[side]["text"]
    return texts


def _result(run: AnalysisRun) -> dict[str, Any]:
    # Gold files are made of finished runs only, and a finished run always has its result.
    return cast(dict[str, Any], run.result)


def _pairs_tsv(run: AnalysisRun, *, strict: bool) -> Iterator[str]:
    texts = _argument_texts(run)
    yield "#id\tlabel\ta1\ta2\n"
    for p in run_pairs(run):
        if (p["strict"] if strict else p["all"]):
            yield _tsv_line(p["pair"], p["gold"], _flat(texts[p["arg1"]]), _flat(texts[p["arg2"]]))


def _rank_tsv(run: AnalysisRun) -> Iterator[str]:
    texts = _argument_texts(run)
    rows = sorted(_result(run)["ranking"], key=lambda r: (r["topic"], r["pagerank"]))
    yield "#id\trank\targument\n"
    for r in rows:
        yield _tsv_line(r["argument"], f"{r['pagerank']:.5f}", _flat(texts[r["argument"]]))


def _full_records(run: AnalysisRun) -> Iterator[dict]:
    frame = annotation_frame(project=run.project, up_to_id=run.last_annotation_id).frame
    competence = _result(run)["mace"]["competence"]
    votes: dict[str, list[dict]] = {}
    for item, worker, label, reason in frame[["item", "worker", "label", "reason"]].itertuples(index=False):
        votes.setdefault(item, []).append(
            {"worker": worker, "label": label, "reason": reason, "competence": competence.get(worker)}
        )
    for p in run_pairs(run):
        yield {**p, "votes": votes.get(p["pair"], [])}


def gold_file(run: AnalysisRun, name: str) -> Iterator[str]:
    """The lines of one gold file; ``name`` is a key of GOLD_FILES."""
    if name == "strict.tsv":
        return _pairs_tsv(run, strict=True)
    if name == "all.tsv":
        return _pairs_tsv(run, strict=False)
    if name == "rank.tsv":
        return _rank_tsv(run)
    if name == "full.jsonl":
        return (json.dumps(r, ensure_ascii=False) + "\n" for r in _full_records(run))
    if name == "full.json":
        return _json_array(run)
    raise KeyError(f"unknown gold file {name!r}; known: {', '.join(GOLD_FILES)}")


def _json_array(run: AnalysisRun) -> Iterator[str]:
    # The published figures only of a corpus this project reproduces (its reference_corpus).
    reference = REFERENCES.get(run.project.options.get(REFERENCE_OPTION))
    yield json.dumps({k: _result(run)[k] for k in ("counts", "human_performance")} | {
        "reference": reference, "run": run.pk, "project": run.project.slug, "params": run.params,
        "annotations_seen": run.annotations_seen,
    }, ensure_ascii=False)[:-1] + ', "pairs": ['
    for i, record in enumerate(_full_records(run)):
        yield ("," if i else "") + "\n" + json.dumps(record, ensure_ascii=False)
    yield "\n]}\n"
