"""Speaker names kept out of what annotators read. A counter speech often names the speaker it
answers ("as rachel says"), and a page that shows the speakers' names, or transcripts that name
them, gives the answer away. Every name of a speaker of the motion is replaced, inside the texts
shown, by a neutral token; the names stay in the item's gold for researchers.

Matching is case-insensitive at word boundaries, possessives included ("rachel's" → "[speaker]'s").
A name that is also a common English word (an English stop word: "will") is replaced only where it
reads as a name: before a possessive, or before a word the auxiliary could not precede (a verb
with -s or -ed, "is", "was", "cannot" …, possibly after one -ly adverb), or capitalised inside a
sentence; "we will argue" stays as it is.

A masked name is often followed by the speaker's pronouns ("[speaker] says that she …"), which tell
the speaker's gender and so can point to one speaker of the motion (by voice, where audio is
played, or across the items of a motion). So after a masked name the gendered third-person
singular pronouns (he, she, him, her, his, hers, himself, herself) become neutral ones in
brackets ("[they]", "[them]", "[their]", "[theirs]", "[themself]"; "her" is "[their]" before a word
that is not a stop word, "[them]" otherwise), capitalised as they were. The scope is a chain of
sentences: the rest of the sentence of a masked name and the ``PRONOUN_SENTENCES`` (5) sentences
after it, each masked pronoun extending the chain by as many again. Sentences end at ".", "!" or
"?" followed by a space, and at a blank line (the transcripts' paragraphs). On the IBM release the
five sentences reach a rebuttal's "First he talks about … Next he talks about …"; a pronoun
before any masked name, or further from one, is left as it is (it is then mostly about someone
else: "a woman … her body").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

TOKEN = "[speaker]"
PRONOUN_SENTENCES = 5  # sentences after a masked name (or a masked pronoun) whose pronouns are masked
_NEUTRAL = {"he": "they", "she": "they", "him": "them", "his": "their", "hers": "theirs",
            "himself": "themself", "herself": "themself"}
_PRONOUN = re.compile(r"\b(?:he|she|him|her|his|hers|himself|herself)\b", re.I)
# One end per sentence: a full stop before a blank line ends one sentence, not two.
_SENTENCE_END = re.compile(r"[.!?]+(?:[^\S\n]*\n\s*\n|(?=\s))|\n\s*\n")
_NEXT_WORD = re.compile(r"\s+([^\W_]+)")
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


def mask_names(text: str, speakers: Sequence[str], *, token: str = TOKEN, pronouns: bool = True) -> str:
    """``text`` with every name of ``speakers`` replaced by ``token`` and, with ``pronouns``, the
    gendered pronouns that follow a masked name made neutral (see the module's rules)."""
    names = tuple(names_of(speakers))
    if not names or not text:
        return text
    masked = _pattern(names).sub(token, text)
    return mask_pronouns(masked, token=token) if pronouns and masked != text else masked


def _neutral(pronoun: str, after: str) -> str:
    lower = pronoun.lower()
    if lower == "her":
        following = _NEXT_WORD.match(after)
        possessive = following is not None and (following.group(1).lower() not in ENGLISH_STOP_WORDS
                                                or following.group(1).lower() == "own")
        word = "their" if possessive else "them"
    else:
        word = _NEUTRAL[lower]
    return f"[{word[:1].upper() + word[1:] if pronoun[:1].isupper() else word}]"


def mask_pronouns(text: str, *, token: str = TOKEN, sentences: int = PRONOUN_SENTENCES) -> str:
    """The gendered pronouns of ``text`` that follow a ``token`` within ``sentences`` sentences
    (of the token or of the last pronoun masked), made neutral."""
    marks = sorted([(m.start(), m.end(), "token") for m in re.finditer(re.escape(token), text)]
                   + [(m.start(), m.end(), "pronoun") for m in _PRONOUN.finditer(text)]
                   + [(m.start(), m.end(), "end") for m in _SENTENCE_END.finditer(text)])
    out, done, left = [], 0, -1  # left: sentence ends still in scope (-1: none open)
    for start, end, kind in marks:
        if kind == "token":
            left = sentences
        elif kind == "end":
            left = left - 1 if left >= 0 else -1
        elif left >= 0:
            out += [text[done:start], _neutral(text[start:end], text[end:])]
            done, left = end, sentences
    return "".join(out) + text[done:]


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
