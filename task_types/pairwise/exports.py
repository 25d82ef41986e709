"""Gold datasets of a finished pairwise gold run, in the formats of the UKPConvArg1 release.

- ``released.zip``: the release's layout, one file per topic in the folders
  ``UKPConvArg1Strict-CSV`` (``#id label a1 a2``: pair id, gold label, the two argument texts
  with line breaks written `` <br/> ``) and ``UKPConvArg1-Ranking-CSV`` (``#id rank argument``:
  argument id, PageRank with five decimals — higher is less convincing — and text, most
  convincing first), each file named after its topic as the release names it;
- ``strict.tsv`` / ``all.tsv``: every topic in one file, the release's columns and ``topic``;
  Strict holds the DAG-consistent a1/a2 pairs, All every pair MACE labelled (including ``equal``);
- ``rank.tsv``: ``#id rank argument topic``, by topic, most convincing first (PageRank is computed
  per topic: values of different topics do not compare);
- ``full.json`` / ``full.jsonl``: every pair with its votes (worker, label, reason, competence),
  weight, MACE entropy and why it was kept or dropped.
"""

from __future__ import annotations

import json
import re
import zipfile
from collections.abc import Iterator
from typing import Any, cast

from analysis.frames import annotation_frame
from analysis.models import AnalysisRun
from analysis.presentation import shown_first_frame
from annotation.models import Item
from annotation.spreadsheet import tsv_line
from task_types.pairwise.published import (
    RANKING_FOLDER,
    RANKING_HEADER,
    STRICT_FOLDER,
    STRICT_HEADER,
)
from task_types.pairwise.report import REFERENCE_OPTION, REFERENCES
from task_types.pairwise.selectors import keeps_pairs_apart, run_pairs, run_texts

RELEASED_ZIP = "released.zip"
GOLD_FILES = {
    RELEASED_ZIP: "application/zip",
    "strict.tsv": "text/tab-separated-values",
    "all.tsv": "text/tab-separated-values",
    "rank.tsv": "text/tab-separated-values",
    "full.json": "application/json",
    "full.jsonl": "application/x-ndjson",
}


def _flat(text: str) -> str:
    return " <br/> ".join(text.replace("\t", " ").replace("\r", "").split("\n"))


def _tsv_line(*cells) -> str:
    """One TSV line; text cells a spreadsheet would run as formulas are neutralised, and no
    value's tab or line break splits it (``annotation.spreadsheet.tsv_line``)."""
    return tsv_line(*cells)


def _argument_texts(run: AnalysisRun) -> dict[str, str]:
    """Argument id -> text as the run saw them (runs stored before texts were kept with the run:
    as the items show them now)."""
    if keeps_pairs_apart(run=run):
        return run_texts(run=run)
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
    yield STRICT_HEADER + "\ttopic\n"
    for p in run_pairs(run=run):
        if (p["strict"] if strict else p["all"]):
            yield _tsv_line(p["pair"], p["gold"], _flat(texts[p["arg1"]]), _flat(texts[p["arg2"]]), p["topic"])


def _ranking(run: AnalysisRun) -> list[dict[str, Any]]:
    """The ranked arguments by topic, most convincing (lowest PageRank) first."""
    return sorted(_result(run)["ranking"], key=lambda r: (str(r["topic"]), r["pagerank"], r["argument"]))


def _rank_tsv(run: AnalysisRun) -> Iterator[str]:
    texts = _argument_texts(run)
    yield RANKING_HEADER + "\ttopic\n"
    for r in _ranking(run):
        yield _tsv_line(r["argument"], f"{r['pagerank']:.5f}", _flat(texts[r["argument"]]), r["topic"])


def released_name(topic: str, folder: str, reference: dict[str, Any] | None) -> str:
    """The file of ``topic`` in a released folder: the topic id, as the reproduced corpus spells it
    in that folder, reduced to characters safe in a file name (a topic id is user data)."""
    name = ((reference or {}).get("file_names", {}).get(folder, {})).get(topic, topic)
    return (re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "_") + ".csv"


def released_files(run: AnalysisRun) -> Iterator[tuple[str, Iterator[str]]]:
    """(path, lines) of each file of the release's layout: a Strict and a Ranking file per topic."""
    reference = REFERENCES.get(run.project.options.get(REFERENCE_OPTION))
    texts = _argument_texts(run)
    strict: dict[str, list[dict[str, Any]]] = {}
    for p in run_pairs(run=run):
        if p["strict"]:
            strict.setdefault(str(p["topic"]), []).append(p)
    ranking: dict[str, list[dict[str, Any]]] = {}
    for r in _ranking(run):
        ranking.setdefault(str(r["topic"]), []).append(r)

    def strict_lines(pairs: list[dict[str, Any]]) -> Iterator[str]:
        yield STRICT_HEADER + "\n"
        for p in pairs:
            yield _tsv_line(p["pair"], p["gold"], _flat(texts[p["arg1"]]), _flat(texts[p["arg2"]]))

    def ranking_lines(rows: list[dict[str, Any]]) -> Iterator[str]:
        yield RANKING_HEADER + "\n"
        for r in rows:
            yield _tsv_line(r["argument"], f"{r['pagerank']:.5f}", _flat(texts[r["argument"]]))

    for folder, by_topic, lines in ((STRICT_FOLDER, strict, strict_lines), (RANKING_FOLDER, ranking, ranking_lines)):
        taken: set[str] = set()
        for topic in sorted(by_topic):
            name = released_name(topic, folder, reference)
            # Two topic ids that reduce to one name keep apart.
            stem, n = name.removesuffix(".csv"), 1
            while name in taken:
                n += 1
                name = f"{stem}-{n}.csv"
            taken.add(name)
            yield f"{folder}/{name}", lines(by_topic[topic])


class _Chunks:
    """A write-only stream that hands over what was written so far: the zip is streamed."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.written = 0

    def write(self, data: bytes) -> int:
        self.parts.append(bytes(data))
        self.written += len(data)
        return len(data)

    def tell(self) -> int:
        return self.written

    def flush(self) -> None:
        """Nothing is buffered here: every write goes straight to the chunks."""

    def close(self) -> None:
        """The chunks belong to the response that streams them; nothing to release."""

    def take(self) -> bytes:
        data, self.parts = b"".join(self.parts), []
        return data


def released_zip(run: AnalysisRun) -> Iterator[bytes]:
    """The release's folders as one zip, streamed a file at a time."""
    out = _Chunks()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, lines in released_files(run):
            with archive.open(path, "w") as member:
                for line in lines:
                    member.write(line.encode("utf-8"))
            yield out.take()
    yield out.take()


def _full_records(run: AnalysisRun) -> Iterator[dict]:
    frame = annotation_frame(project=run.project, up_to_id=run.last_annotation_id).frame
    competence = _result(run)["mace"]["competence"]
    # A reason speaks of the arguments as the worker saw them (A1 on the left), while the label
    # names them by import side: each vote says which side was on the left.
    left: dict[int, str] = dict(shown_first_frame(project=run.project).itertuples(index=False)) if len(frame) else {}
    votes: dict[str, list[dict]] = {}
    for item, worker, label, reason, annotation in frame[["item", "worker", "label", "reason", "annotation"]].itertuples(index=False):
        votes.setdefault(item, []).append(
            {"worker": worker, "label": label, "reason": reason, "shown_left": left.get(annotation, "a1"),
             "competence": competence.get(worker)}
        )
    for p in run_pairs(run=run):
        yield {**p, "votes": votes.get(p["pair"], [])}


def gold_file(run: AnalysisRun, name: str) -> Iterator[str]:
    """The lines of one text gold file; ``name`` is a key of GOLD_FILES other than the zip."""
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
