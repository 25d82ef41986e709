"""The comprehension corpus: motions, speeches and argument titles, turned into questions.

A question is one speech with every argument title of its motion on the speech's side. Import
files hold one question per row (the titles inline); ``questions_from_corpus`` builds them from a
list of speeches and a list of titles, and ``ibm_questions`` from the IBM Debater Recorded
Debating Dataset (V4), with the iDebate points as titles and, as gold, the titles that the
dataset's sentence-level annotation finds in the speech. ``python -m task_types.comprehension.cli`` writes either as
an import file.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from annotation.importers import read_csv_file
from annotation.task_types import limits
from annotation.task_types.base import NONE, FieldError, record_text, seeded_sample

STANCES = ("pro", "con")
MAX_TITLES = 30
MAX_ID = 200
FIXTURES = Path(__file__).resolve().parent / "data"
IBM_FOLDER = "ibm_recorded_debating_v4"


# How long each text may be (annotation.task_types.limits): a title's ``text`` is the point's
# paragraph, a speech's the whole talk.
FIELD_LIMITS = {"id": limits.ID, "speech_id": limits.ID, "motion_id": limits.ID, "stance": limits.ID,
                "audio": limits.ID, "speaker": limits.NAME, "motion": limits.TOPIC, "title": limits.TITLE,
                "text": limits.ARGUMENT, "transcript": limits.TRANSCRIPT, "asr_transcript": limits.TRANSCRIPT}


def _text(record: Mapping[str, Any], name: str, *, required: bool = False) -> str:
    return record_text(record, name, required=required, limit=FIELD_LIMITS.get(name, limits.ANY_TEXT))


def _json_list(record: Mapping[str, Any], name: str) -> list | None:
    value = record.get(name)
    if value is None or value == "":
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise FieldError(name, "must be a JSON list") from None
    if not isinstance(value, list):
        raise FieldError(name, f"must be a list, got {type(value).__name__}")
    return value


def split_sentences(text: str) -> list[str]:
    """Paragraphs when the transcript has them (the IBM transcripts put one sentence per
    paragraph), else sentences ending in . ! or ?."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]
    if len(paragraphs) > 1:
        return paragraphs
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def gold_from_text(value: Any) -> list[str] | None:
    """``a|b`` or a list → title ids; ``none`` → [] (no title argued); empty → None (no gold)."""
    if value is None or value == "":
        return None
    if isinstance(value, list):
        items = [str(v).strip() for v in value]
    elif isinstance(value, str | int):
        items = [v.strip() for v in str(value).split("|")]
    else:
        raise FieldError("gold", f"must be title ids separated by '|' or 'none', got {type(value).__name__}")
    items = [v for v in items if v]
    return [] if items == [NONE] else items


Gold = list[str] | dict[str, list[str]] | None


def gold_labels(gold: Gold, title_ids: Iterable[str]) -> dict[str, int] | None:
    """title id → 1 (argued) / 0 (not argued) as the gold judges them; None without gold. A gold
    is the list of argued titles (every other title of the question is not argued), or
    ``{"argued": [...], "unjudged": [...]}`` when the source never judged some titles: those are
    left out."""
    if not isinstance(gold, list | dict):  # None, or a missing value of a frame
        return None
    argued = set(gold["argued"] if isinstance(gold, dict) else gold)
    unjudged = set(gold.get("unjudged", [])) if isinstance(gold, dict) else set()
    return {t: int(t in argued) for t in title_ids if t not in unjudged}


def clean_question(record: Mapping[str, Any]) -> tuple[dict[str, Any], Gold]:
    """One question's payload and gold from an import record (flat columns or a nested
    ``speech``); raise FieldError naming the field."""
    nested = record.get("speech")
    source = nested if isinstance(nested, Mapping) else record
    prefix = "speech." if isinstance(nested, Mapping) else ""
    try:
        speech_id = _text(source, "id" if prefix else "speech_id") or (_text(record, "id") if not prefix else "")
        if not speech_id:
            raise FieldError("speech_id", "is missing")
        stance = _text(source, "stance", required=True).lower()
        if stance not in STANCES:
            raise FieldError("stance", f"must be pro or con, got {stance!r}")
        transcript = _text(source, "transcript")
        asr = _text(source, "asr_transcript")
        audio = _text(source, "audio")
        if not (transcript or asr or audio):
            raise FieldError("transcript", "a speech needs a transcript, an ASR transcript or audio")
        sentences = _json_list(source, "sentences")
        if sentences is None:
            sentences = split_sentences(transcript or asr)
        if not all(isinstance(s, str) for s in sentences):
            raise FieldError("sentences", "must be a list of texts")
        speaker = _text(source, "speaker")
    except FieldError as exc:
        raise FieldError(prefix + (exc.field or ""), exc.message) from None
    titles_raw = _json_list(record, "titles")
    if not titles_raw:
        raise FieldError("titles", "a question needs at least one argument title")
    if len(titles_raw) > MAX_TITLES:
        raise FieldError("titles", f"at most {MAX_TITLES} titles per question, got {len(titles_raw)}")
    titles, seen = [], set()
    for i, t in enumerate(titles_raw, 1):
        if not isinstance(t, Mapping):
            raise FieldError("titles", f"title {i} must be an object with id and title")
        try:
            tid, title = _text(t, "id", required=True), _text(t, "title", required=True)
        except FieldError as exc:
            raise FieldError(f"titles[{i}].{exc.field}", exc.message) from None
        if tid == NONE:
            raise FieldError(f"titles[{i}].id", "'none' is reserved for the None answer")
        if len(tid) > MAX_ID or "|" in tid:
            raise FieldError(f"titles[{i}].id", f"must have at most {MAX_ID} characters and no '|' (it separates ids)")
        if tid in seen:
            raise FieldError(f"titles[{i}].id", f"title id {tid!r} appears twice")
        seen.add(tid)
        titles.append({"id": tid, "title": title, "text": _text(t, "text")})
    gold = gold_from_text(record.get("gold"))
    if gold:
        unknown = [g for g in gold if g not in seen]
        if unknown:
            raise FieldError("gold", f"names titles the question does not have: {', '.join(unknown)}")
    unjudged = gold_from_text(record.get("gold_unjudged"))
    if unjudged:
        unknown = [g for g in unjudged if g not in seen]
        if unknown:
            raise FieldError("gold_unjudged", f"names titles the question does not have: {', '.join(unknown)}")
        if gold is None:
            raise FieldError("gold_unjudged", "needs a gold: it names the titles the gold leaves out")
        both = [g for g in unjudged if g in gold]
        if both:
            raise FieldError("gold_unjudged", f"titles both argued and unjudged: {', '.join(both)}")
    payload = {
        "motion_id": _text(record, "motion_id"),
        "motion": _text(record, "motion", required=True),
        "speech": {"id": speech_id, "speaker": speaker, "stance": stance, "audio": audio,
                   "transcript": transcript, "asr_transcript": asr, "sentences": sentences},
        "titles": titles,
    }
    if unjudged and gold is not None:
        return payload, {"argued": gold, "unjudged": unjudged}
    return payload, gold


def questions_from_corpus(speeches: Iterable[Mapping[str, Any]], titles: Iterable[Mapping[str, Any]],
                          gold: Mapping[str, list[str]] | None = None, *,
                          unjudged: Mapping[str, list[str]] | None = None) -> list[dict[str, Any]]:
    """One import record per speech whose motion has titles on its side, the titles in the
    order given. Speeches and titles name their motion by ``motion_id`` and side by ``stance``.
    ``gold`` maps a speech to its argued titles, ``unjudged`` to the titles its gold leaves out."""
    by_side: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for t in titles:
        by_side[(str(t["motion_id"]), str(t["stance"]).lower())].append(
            {"id": str(t["id"]), "title": t["title"], "text": t.get("text", "")})
    records = []
    for s in speeches:
        side = by_side.get((str(s["motion_id"]), str(s["stance"]).lower()))
        if not side:
            continue
        record = {
            "id": s["id"], "motion_id": str(s["motion_id"]), "motion": s["motion"],
            "speech": {key: s.get(key, "") for key in
                       ("id", "speaker", "stance", "audio", "transcript", "asr_transcript")},
            "titles": side,
        }
        record["speech"]["sentences"] = s.get("sentences") or split_sentences(s.get("transcript", ""))
        if gold is not None and s["id"] in gold:
            record["gold"] = gold[s["id"]] or NONE
            offered = {t["id"] for t in side}
            left_out = [t for t in (unjudged or {}).get(s["id"], []) if t in offered]
            if left_out:
                record["gold_unjudged"] = left_out
        records.append(record)
    return records


def sample_questions(records: Sequence[Mapping[str, Any]], *, n: int | None, seed: int) -> list[dict[str, Any]]:
    """``n`` of the questions (one per speech) drawn at random with ``seed``, all of them when
    ``n`` is None or not smaller, in id order: the paper's readers read 40 of the speeches heard."""
    return seeded_sample(records, n=n, seed=seed, unit="speech")

def ibm_questions(folder: Path) -> list[dict[str, Any]]:
    """Questions of the IBM Debater Recorded Debating Dataset V4: every speech that its iDebate
    layer covers, with its motion's iDebate points on its side as titles, and as gold the points
    that at least one of its sentences is marked to mention. A point of the side that the layer
    has no sentence row for, for that speech, was never judged there: it is offered to
    annotators but left out of the gold (``gold_unjudged``), not counted as not mentioned."""
    speeches = {r["speech-id"]: r for _, r in read_csv_file(
        folder / "speech-transcripts.csv",
        columns=("speech-id", "motion-id", "speech-to-motion-polarity", "speaker-name", "speech-text"))}
    side_titles: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    mentioned: dict[str, set[str]] = defaultdict(set)
    judged: dict[str, set[str]] = defaultdict(set)
    covered: list[str] = []
    motions: dict[str, str] = {}
    for _, r in read_csv_file(folder / "idebate-claim-to-sentence-matching.csv", columns=(
            "speech-id", "motion-id", "motion-text", "idebate-point-id", "claim-text",
            "is-claim-mentioned-in-sentence")):
        speech = speeches.get(r["speech-id"])
        if speech is None:
            continue
        stance = speech["speech-to-motion-polarity"].strip().lower()
        side_titles[(r["motion-id"], stance)][r["idebate-point-id"]] = r["claim-text"].strip()
        motions[r["motion-id"]] = r["motion-text"].strip()
        if r["speech-id"] not in covered:
            covered.append(r["speech-id"])
        judged[r["speech-id"]].add(r["idebate-point-id"])
        if r["is-claim-mentioned-in-sentence"].strip().lower() == "true":
            mentioned[r["speech-id"]].add(r["idebate-point-id"])
    corpus_speeches: list[dict[str, Any]] = []
    titles: list[dict[str, str]] = []
    for speech_id in covered:
        s = speeches[speech_id]
        corpus_speeches.append({
            "id": speech_id, "motion_id": s["motion-id"], "motion": motions[s["motion-id"]],
            "speaker": s["speaker-name"], "stance": s["speech-to-motion-polarity"].strip().lower(),
            "transcript": s["speech-text"].strip(), "sentences": split_sentences(s["speech-text"]),
        })
    for (motion_id, stance), points in sorted(side_titles.items()):
        titles.extend({"id": pid, "motion_id": motion_id, "stance": stance, "title": title, "text": ""}
                      for pid, title in sorted(points.items(), key=lambda kv: int(kv[0]) if kv[0].isdigit() else kv[0]))
    gold = {sid: sorted(mentioned.get(sid, set())) for sid in covered}
    side_of = {sid: (speeches[sid]["motion-id"], speeches[sid]["speech-to-motion-polarity"].strip().lower())
               for sid in covered}
    unjudged = {sid: [p for p in side_titles[side_of[sid]] if p not in judged[sid]] for sid in covered}
    return questions_from_corpus(corpus_speeches, titles, gold, unjudged=unjudged)


def fixture_questions() -> list[dict[str, Any]]:
    """The four short demo speeches (synthesised audio) shipped with the code."""
    speeches = json.loads((FIXTURES / "speeches.json").read_text(encoding="utf-8"))
    titles = json.loads((FIXTURES / "titles.json").read_text(encoding="utf-8"))
    gold = json.loads((FIXTURES / "gold.json").read_text(encoding="utf-8"))
    return questions_from_corpus(speeches, titles, gold)
