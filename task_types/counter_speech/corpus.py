"""Counter-speech questions (Orbach et al., ACL 2020) from a corpus of speeches.

A speech has a motion, a stance (pro or con), a speaker and, for an opposing speech, the
supporting speech it was recorded in response to (``counters``, empty for none) with the kind of
counter (``explicit`` rebuttal, ``implicit``, or empty when unknown). A question is a supporting
speech with at least one counter and at least one other opposing speech on its motion; its
candidates are the motion's opposing speeches except those by the supporting speech's own
speaker, 3 to 5 of them (sampled when more), exactly one of them a true counter, shown in a
random order that the question records under neutral ids (a, b, c …). The true counter, the
corpus ids behind the letters and the speakers' names are the question's gold, never its payload.
"""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.importers import read_csv_file
from annotation.task_types.base import seeded_sample

SETTINGS = ("all", "explicit", "implicit")
KINDS = ("explicit", "implicit")
IBM_FOLDER = "ibm_recorded_debating_v4"
PAPER_MIN_CANDIDATES = 3  # the paper showed 3 to 5 candidates


@dataclass(frozen=True)
class BuildReport:
    """What the builder made and left out, in numbers a researcher can quote."""

    questions: int
    below_minimum: int  # questions kept with fewer candidates than the paper's 3 (min_candidates below 3)
    skipped: dict[str, int] = field(default_factory=dict)  # reason → supporting speeches left out
    candidates: dict[int, int] = field(default_factory=dict)  # candidates shown → questions
    # candidates the motion offered → supporting speeches left out for having fewer than the minimum
    too_few: dict[int, int] = field(default_factory=dict)

    def lines(self) -> list[str]:
        out = [f"{self.questions} question{'s' * (self.questions != 1)}; candidates per question: "
               + (", ".join(f"{k}: {v}" for k, v in sorted(self.candidates.items())) or "none")]
        if self.below_minimum:
            out.append(f"{self.below_minimum} of them {'have' if self.below_minimum != 1 else 'has'} "
                       f"fewer than {PAPER_MIN_CANDIDATES} candidates (the paper's minimum)")
        out += [f"left out, {reason}: {n}" for reason, n in sorted(self.skipped.items())]
        return out

    def with_minimum(self, min_candidates: int) -> int:
        """How many questions the same build makes with ``min_candidates`` instead (never fewer
        than 2): the speeches left out for too few candidates come back when they offer that many."""
        floor = max(min_candidates, 2)
        return self.questions + sum(n for offered, n in self.too_few.items() if offered >= floor)

    def advice(self, *, setting: str) -> str:
        """What to change when the minimum number of candidates left speeches out: each lower
        minimum that builds more questions, largest first, with how many, the minimum named as
        ``setting`` (the form's field or the command's option); "" when none would build more."""
        options = []
        for minimum in sorted({k for k in self.too_few if k >= 2}, reverse=True):
            more = self.with_minimum(minimum)
            if more > self.questions:
                options.append(f"to {minimum} to build {more} question{'s' * (more != 1)}")
        return f"set {setting} " + ", or ".join(options) if options else ""


def _norm(speech: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "id": str(speech["id"]).strip(), "motion_id": str(speech.get("motion_id", "")).strip(),
        "motion": str(speech.get("motion", "")).strip(), "speaker": str(speech.get("speaker", "")).strip(),
        "stance": str(speech.get("stance", "")).strip().lower(), "counters": str(speech.get("counters") or "").strip(),
        "counter_kind": str(speech.get("counter_kind") or "").strip().lower(),
        "transcript": str(speech.get("transcript", "")).strip(), "audio": str(speech.get("audio") or "").strip(),
    }


def build_questions(speeches: Iterable[Mapping[str, Any]], *, setting: str = "all", min_candidates: int = 3,
                    max_candidates: int = 5, seed: int = 0) -> tuple[list[dict[str, Any]], BuildReport]:
    """Import records of the questions, and what was built and left out. ``setting`` keeps the
    counters of one kind (explicit or implicit) or all; ``min_candidates`` below 3 lets smaller
    questions through (counted in the report), and a question always needs 2."""
    if setting not in SETTINGS:
        raise ValueError(f"setting must be one of {', '.join(SETTINGS)}, got {setting!r}")
    if not 2 <= min_candidates <= max_candidates:
        raise ValueError("need 2 <= min_candidates <= max_candidates")
    rng = random.Random(seed)
    all_speeches = [_norm(s) for s in speeches]
    opposing: dict[str, list[dict]] = defaultdict(list)
    supporting: dict[str, list[dict]] = defaultdict(list)
    speakers: dict[str, list[str]] = defaultdict(list)
    for s in all_speeches:
        (opposing if s["stance"] == "con" else supporting)[s["motion_id"]].append(s)
        if s["speaker"] and s["speaker"] not in speakers[s["motion_id"]]:
            speakers[s["motion_id"]].append(s["speaker"])
    records: list[dict[str, Any]] = []
    skipped: defaultdict[str, int] = defaultdict(int)
    sizes: defaultdict[int, int] = defaultdict(int)
    below = 0
    too_few: defaultdict[int, int] = defaultdict(int)
    for s in sorted((s for s in all_speeches if s["stance"] == "pro"), key=lambda s: s["id"]):
        counters = [c for c in opposing[s["motion_id"]] if c["counters"] == s["id"]
                    and (setting == "all" or c["counter_kind"] == setting)]
        if not counters:
            skipped["no counter" + ("" if setting == "all" else f" of kind {setting}")] += 1
            continue
        eligible = [c for c in opposing[s["motion_id"]] if c["speaker"] != s["speaker"] or not s["speaker"]]
        true = sorted((c for c in counters if c in eligible), key=lambda c: c["id"])
        if not true:
            skipped["every counter is by the same speaker"] += 1
            continue
        # One true counter per question: the others that answer this speech (another of the
        # same kind, or one of another kind in a one-kind setting) are not shown, since they
        # would be right answers scored as wrong.
        counter = rng.choice(true)
        others = [c for c in eligible if c["counters"] != s["id"]]
        if 1 + len(others) < max(min_candidates, 2):
            skipped[f"fewer than {max(min_candidates, 2)} candidates"] += 1
            too_few[1 + len(others)] += 1
            continue
        others = sorted(others, key=lambda c: c["id"])
        if 1 + len(others) > max_candidates:
            others = rng.sample(others, max_candidates - 1)
        pool = [counter, *others]
        rng.shuffle(pool)
        sizes[len(pool)] += 1
        below += len(pool) < PAPER_MIN_CANDIDATES
        # Shown ids are letters: corpus ids can give the answer away (IBM's name the speaker a
        # speech responds to). The item's gold keeps what each letter stands for; the task type
        # masks the speakers' names (all of the motion's, listed in ``speakers``) when it cleans
        # the record, and keeps them in the gold too.
        letters = "abcde"[: len(pool)]
        number = sorted(p["id"] for p in supporting[s["motion_id"]]).index(s["id"]) + 1
        records.append({
            "id": f"{s['motion_id']}-s{number}__{setting}", "motion_id": s["motion_id"], "motion": s["motion"],
            "setting": setting, "speakers": speakers[s["motion_id"]],
            "speech": {key: s[key] for key in ("id", "speaker", "transcript", "audio")},
            "candidates": [{"id": letter, **{key: c[key] for key in ("speaker", "transcript", "audio")}}
                           for letter, c in zip(letters, pool, strict=True)],
            "gold": {"counters": [letters[pool.index(counter)]], "kind": counter["counter_kind"],
                     "sources": {letter: c["id"] for letter, c in zip(letters, pool, strict=True)},
                     # every counter of this speech on its motion, shown or not: the paper's
                     # evaluation ranks all the motion's opposing speeches
                     "counters_all": [c["id"] for c in true]},
        })
    return records, BuildReport(questions=len(records), below_minimum=below, skipped=dict(skipped),
                                candidates=dict(sizes), too_few=dict(too_few))


def sample_questions(records: Sequence[Mapping[str, Any]], *, n: int | None, seed: int) -> list[dict[str, Any]]:
    """``n`` of the questions drawn at random with ``seed`` (all of them when ``n`` is None or not
    smaller), in id order: the paper gave its annotators 60 sampled questions."""
    return seeded_sample(records, n=n, seed=seed, unit="question")

# The columns of the release's transcripts file that questions are built from.
TRANSCRIPT_COLUMNS = ("speech-id", "motion-id", "speech-to-motion-polarity", "speaker-name", "speech-text")


def ibm_speeches(folder: Path) -> list[dict[str, Any]]:
    """The 200 speeches of the IBM Debater Recorded Debating Dataset V4: each CON speech names the
    PRO speaker it responds to, on the same motion. The release does not say whether a counter is
    an explicit rebuttal or implicit, so their kind is left empty (only the "all" setting applies)."""
    rows = [r for _, r in read_csv_file(folder / "speech-transcripts.csv", columns=TRANSCRIPT_COLUMNS)]
    motions = _motion_texts(folder)
    pro_by_speaker = {(r["motion-id"], r["speaker-name"]): r["speech-id"] for r in rows
                      if r["speech-to-motion-polarity"].strip().upper() == "PRO"}
    out = []
    for r in rows:
        stance = r["speech-to-motion-polarity"].strip().lower()
        responds = (r.get("responds-to-speaker-name") or "").strip()
        out.append({
            "id": r["speech-id"], "motion_id": r["motion-id"], "motion": motions.get(r["motion-id"], ""),
            "speaker": r["speaker-name"], "stance": stance, "transcript": r["speech-text"].strip(),
            "counters": pro_by_speaker.get((r["motion-id"], responds), "") if stance == "con" else "",
            "counter_kind": "",
        })
    return out


def _motion_texts(folder: Path) -> dict[str, str]:
    """Motion texts, which the transcripts file lacks, from the other files of the release."""
    texts: dict[str, str] = {}
    for name in ("idebate-claim-to-sentence-matching.csv", "GP-claims-mentioned-in-speeches.csv"):
        path = folder / name
        if path.is_file():
            for _, r in read_csv_file(path, columns=("motion-id", "motion-text")):
                texts.setdefault(r["motion-id"], r["motion-text"].strip())
    return texts
