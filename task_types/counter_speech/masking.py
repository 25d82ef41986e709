"""Speaker names kept out of what annotators read. A counter speech often names the speaker it
answers ("as rachel says"), and a page that shows the speakers' names, or transcripts that name
them, gives the answer away. Every name of a speaker of the motion is replaced, inside the texts
shown, by a neutral token; the names stay in the item's gold for researchers.

Matching is case-insensitive at word boundaries, possessives included ("rachel's" → "[speaker]'s").
A name that is also a common English word (an English stop word: "will") is replaced only where it
reads as a name: before a possessive, or before a word the auxiliary could not precede (a verb
with -s or -ed, "is", "was", "cannot" …, possibly after one -ly adverb), or capitalised inside a
sentence; "we will argue" stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

TOKEN = "[speaker]"
# Words that follow a name but never the auxiliary of the same spelling.
_NOT_AFTER_AUXILIARY = (r"is|was|has|had|does|did|cannot|can't|can|could|would|should|might|must|may|"
                        r"isn't|wasn't|doesn't|didn't|hasn't|won't|told|said|thought|brought|made|gave|took|"
                        r"wants|seems|thinks|knows")
# -s words that do follow the auxiliary ("will always", "will this").
_AFTER_AUXILIARY = r"always|perhaps|sometimes|this|thus|us|its|his|these|those|as|less|unless|across|nevertheless"
_APOSTROPHE = "['’]"


def names_of(speakers: Iterable[str]) -> list[str]:
    """Each speaker's full name and its parts (first and last names), longest first."""
    out: set[str] = set()
    for speaker in speakers:
        parts = [p for p in re.split(r"[\s_]+", speaker.strip()) if p]
        if parts:
            out.add(" ".join(parts))
            out.update(p for p in parts if len(p) > 1)
    return sorted(out, key=lambda n: (-len(n), n.lower()))


@lru_cache(maxsize=256)
def _pattern(names: tuple[str, ...]) -> re.Pattern[str]:
    plain = [n for n in names if n.lower() not in ENGLISH_STOP_WORDS]
    common = [n for n in names if n.lower() in ENGLISH_STOP_WORDS]
    alternatives = []
    if plain:
        words = "|".join(r"\s+".join(map(re.escape, n.split())) for n in plain)
        alternatives.append(rf"(?i:\b(?:{words})\b)")
    if common:
        words = "|".join(map(re.escape, common))
        name_use = (rf"(?={_APOSTROPHE}s\b|\s+(?:\w+ly\s+)?(?:(?!(?:{_AFTER_AUXILIARY})\b|\w*(?:ss|us|eed|times)\b)\w+(?:s|ed)\b"
                    rf"|(?:{_NOT_AFTER_AUXILIARY})\b))")
        alternatives.append(rf"(?i:\b(?:{words})\b){name_use}")
        # Capitalised where no sentence starts: "as Will argues", "thank you, Will."
        capitals = "|".join(re.escape(n[:1].upper() + n[1:]) for n in common)
        alternatives.append(rf"(?<=[a-z,;:]\s)\b(?:{capitals})\b")
    return re.compile("|".join(alternatives) if alternatives else r"(?!x)x")


def mask_names(text: str, speakers: Sequence[str], *, token: str = TOKEN) -> str:
    """``text`` with every name of ``speakers`` replaced by ``token`` (see the module's rules)."""
    names = tuple(names_of(speakers))
    return _pattern(names).sub(token, text) if names and text else text


def names_in(text: str, speakers: Sequence[str]) -> set[str]:
    """The names of ``speakers`` that ``text`` uses (lowercased), by the same rules as the mask."""
    names = tuple(names_of(speakers))
    return {m.group(0).lower() for m in _pattern(names).finditer(text)} if names and text else set()


def leaks(records: Iterable[Mapping[str, Any]]) -> int:
    """Questions (import records with their gold) whose true counter names the supporting speaker
    while no other candidate does: the names alone would give those answers away."""
    count = 0
    for r in records:
        gold = r["gold"]
        speaker = gold.get("speaker") or r["speech"].get("speaker", "")
        if not speaker:
            continue
        named = [bool(names_in(c["transcript"], [speaker])) for c in r["candidates"]]
        true = [i for i, c in enumerate(r["candidates"]) if c["id"] in gold["counters"]]
        if any(named[i] for i in true) and not any(n for i, n in enumerate(named) if i not in true):
            count += 1
    return count
