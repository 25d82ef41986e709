"""Scoring a worker's answer to a gold question or training item against its known answer.

Which fields are compared, and how, is the task type's (``TaskType.gold_fields``,
``TaskType.gold_choices``, ``TaskType.score_gold``); the arithmetic lives here, pure:

- one choice (a label, a candidate, a set of key points): exact;
- several choices with an exclusive "None" (argument titles, key points): set overlap, Jaccard
  (shared options over options in either) or MASI (Jaccard times 1 for equal sets, 2/3 when
  one holds the other, 1/3 when they only overlap, 0 when disjoint; Passonneau 2006), right
  from the project's pass mark (0.5 unless set);
- an ordinal score (rubric 1–4): exact, or within one point when the project says so; both
  are recorded;
- a gold answer may accept other answers (a pairwise gold pair that takes a tie): any of them
  scores 1.

A known answer holds an exclusive "None" as the option ``["none"]`` (as it is imported), while a
stored answer holds it as an empty set with ``"none": true`` (as the types' ``clean_answer``
store it); scoring reads the answer in the known answer's form (``in_gold_form``), so a None
answer to a None gold scores 1 and a None answer to any other gold shares no option with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from annotation.task_types.answers import NONE, choices_problem
from annotation.task_types.records import FieldError

SetOverlap = Literal["jaccard", "masi"]
Rubric = Literal["exact", "within_one"]


@dataclass(frozen=True)
class GoldPolicy:
    """The project's scoring settings (``QualityPolicy``) a type scores with."""

    set_overlap: SetOverlap = "jaccard"
    set_pass: float = 0.5
    rubric: Rubric = "exact"


DEFAULT_POLICY = GoldPolicy()


@dataclass(frozen=True)
class GoldScore:
    score: float  # 0 to 1
    right: bool
    method: str  # how it was scored, in words a staff member reads ("exact", "jaccard", …)
    # Figures beside the score, e.g. both the exact and the within-one verdict of a rubric score.
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CleanGold:
    """A validated known answer: the expected answer's gold fields, and other answers (same
    fields) that are also right."""

    answer: dict[str, Any]
    accept: list[dict[str, Any]] = field(default_factory=list)


def jaccard(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = set(a), set(b)
    if not sa and not sb:
        return 1.0
    return len(sa & sb) / len(sa | sb)


def masi(a: Iterable[str], b: Iterable[str]) -> float:
    sa, sb = set(a), set(b)
    if sa == sb:
        return 1.0
    j = jaccard(sa, sb)
    if sa <= sb or sb <= sa:
        return j * 2 / 3
    if sa & sb:
        return j / 3
    return 0.0


def overlap(a: Sequence[str], b: Sequence[str], how: SetOverlap) -> float:
    return masi(a, b) if how == "masi" else jaccard(a, b)


def score_value(kind: str, given: Any, expected: Any, *, policy: GoldPolicy, ordinal: bool) -> GoldScore:
    """One field's score: ``kind`` is the answer field's kind ("choice" or "choices")."""
    if kind == "choices":
        s = overlap(list(given or ()), list(expected or ()), policy.set_overlap)
        return GoldScore(round(s, 6), s >= policy.set_pass, f"{policy.set_overlap} ≥ {policy.set_pass:g}")
    if ordinal:
        try:
            distance = abs(int(given) - int(expected))
        except (TypeError, ValueError):
            distance = None
        exact = distance == 0
        within = distance is not None and distance <= 1
        right = within if policy.rubric == "within_one" else exact
        return GoldScore(1.0 if exact else 0.5 if within else 0.0, right,
                         "within one" if policy.rubric == "within_one" else "exact",
                         {"exact": exact, "within_one": within})
    same = str(given) == str(expected)
    return GoldScore(1.0 if same else 0.0, same, "exact")


def in_gold_form(answer: Mapping[str, Any], *, kinds: Mapping[str, str]) -> dict[str, Any]:
    """``answer`` with each set field as a known answer holds it: a stored None (no option,
    ``"none": true``) becomes ``["none"]``; an answer already in that form is kept."""
    shaped = dict(answer)
    for name, kind in kinds.items():
        if kind == "choices":
            chosen = [str(v) for v in answer.get(name) or ()]
            if not chosen and answer.get("none") is True:
                chosen = [NONE]
            shaped[name] = chosen
    return shaped


def score_answer(answer: Mapping[str, Any], gold: CleanGold, *, kinds: Mapping[str, str], policy: GoldPolicy,
                 ordinal: bool = False) -> GoldScore:
    """Score ``answer`` on the fields in ``kinds`` ({field: "choice" | "choices"}): against the
    expected answer, and against each accepted one (any exact match scores 1). Several fields:
    the mean score, right when every field is. A stored None counts as the option ``"none"``."""
    answer = in_gold_form(answer, kinds=kinds)
    for alternative in gold.accept:
        if all(_same(answer.get(f), alternative.get(f), kind) for f, kind in kinds.items()):
            return GoldScore(1.0, True, "accepted alternative", {"accepted": dict(alternative)})
    scores = [score_value(kind, answer.get(f), gold.answer.get(f), policy=policy, ordinal=ordinal)
              for f, kind in kinds.items()]
    if len(scores) == 1:
        return scores[0]
    return GoldScore(round(sum(s.score for s in scores) / len(scores), 6), all(s.right for s in scores),
                     " and ".join(s.method for s in scores))


def _same(a: Any, b: Any, kind: str) -> bool:
    if kind == "choices":
        return set(a or ()) == set(b or ())
    return a is not None and str(a) == str(b)


def clean_gold_fields(data: Any, *, kinds: Mapping[str, str],
                      choices: Callable[[str], list[str] | None]) -> CleanGold:
    """A known answer read from ``data`` ({field: value, "accept": [answers]}): each field of
    ``kinds`` is required, a "choice" one of ``choices(field)``, a "choices" one a non-empty list
    of them or ``["none"]`` alone. Raises FieldError naming the field (``gold_answer.label``)."""

    def one(values: Any, where: str) -> dict[str, Any]:
        if not isinstance(values, Mapping):
            raise FieldError(where, "must be a JSON object of the answer's fields")
        unknown = sorted(set(values) - set(kinds))
        if unknown:
            raise FieldError(f"{where}.{unknown[0]}", f"is not a gold field (known: {', '.join(kinds)})")
        clean: dict[str, Any] = {}
        for name, kind in kinds.items():
            value, path, allowed = values.get(name), f"{where}.{name}", choices(name)
            if kind == "choices":
                if not isinstance(value, list) or not value or not all(isinstance(v, str | int) for v in value):
                    raise FieldError(path, 'must be a non-empty list of option ids, or ["none"]')
                chosen = sorted({str(v) for v in value})
                problem = choices_problem(chosen, allowed if allowed is not None else chosen,
                                          required="choose at least one option",
                                          clash='"none" cannot come with other options', noun="option")
                if problem:
                    raise FieldError(path, problem)
                clean[name] = chosen
            else:
                if value is None or isinstance(value, list | dict) or str(value) == "":
                    raise FieldError(path, "is required")
                if allowed is not None and str(value) not in allowed:
                    raise FieldError(path, f"{value!r} is not one of {', '.join(allowed)}")
                clean[name] = str(value)
        return clean

    if not isinstance(data, Mapping):
        raise FieldError("gold_answer", "must be a JSON object of the answer's fields")
    accept = data.get("accept", [])
    if not isinstance(accept, list):
        raise FieldError("gold_answer.accept", "must be a list of answers")
    return CleanGold(answer=one({k: v for k, v in data.items() if k != "accept"}, "gold_answer"),
                     accept=[one(a, f"gold_answer.accept[{n}]") for n, a in enumerate(accept)])
