"""The order an assignment shows an item's options in: drawn from the assignment's key.

A task type names the parts of an item whose options may be reordered
(``TaskType.shown_order_parts``); the engine draws one order per assignment when it opens it and
stores it, so a reload, a refused submission shown again and the API all show the same order,
and the export and the analyses know what the worker saw. Answers never depend on it: they name
options by their ids.

``ShownOrder`` is the part of the task-type contract about it (``TaskType`` inherits it): which
parts are reordered, how the payload is shown in an order, and an answer in the words of the
page it was given on (staff pages, feedback) beside its stored form.

The seed is the assignment's natural key, its item and worker (``assignment_seed``): a worker
has at most one assignment per item, so the order is as reproducible as from the row's id, and
it is known before the row is written, which saves the hot path an UPDATE per item.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from annotation.task_types.answers import AnswerField

Order = dict[str, list[Any]]


def assignment_seed(*, item_id: int, worker_id: int) -> str:
    """The seed of an assignment's order: its item and worker."""
    return f"{item_id}-{worker_id}"


def draw_order(parts: Mapping[str, list[Any]], *, seed: str) -> Order:
    """Each part's options in an order drawn uniformly from ``seed`` (``assignment_seed``), the
    same on every machine and Python version: a seed given as text is hashed with SHA-512 and
    ``shuffle`` draws with ``randbelow``, both fixed since Python 3.2."""
    drawn: Order = {}
    for part, ids in parts.items():
        shuffled = list(ids)
        random.Random(f"{seed}:{part}").shuffle(shuffled)
        drawn[part] = shuffled
    return drawn


def order_for(*, parts: Mapping[str, list[Any]], seed: str, keep_import_order: bool) -> Order | None:
    """What an assignment with ``seed`` stores: the drawn order, or the import order when the
    project keeps it; None for a type with nothing to reorder."""
    if not any(parts.values()):
        return None
    return {part: list(ids) for part, ids in parts.items()} if keep_import_order else draw_order(parts, seed=seed)


class ShownOrder:
    """The task-type contract's part about the order options are shown in (see the module)."""

    # Declared by the task type (``TaskType``): what an answer holds and how its label reads.
    answer_fields: ClassVar[tuple[AnswerField, ...]] = ()

    def label_display(self, answer: Mapping[str, Any]) -> str:
        return str(answer)

    # Parts of an item whose options may be shown in a drawn order: payload keys that hold a list
    # of options, each with an ``id`` (candidates, key points, titles). The engine draws an order
    # per assignment and stores it (``Assignment.shown_order``); pages and API payloads show the
    # options in it, and answers keep naming options by their ids, so an answer means the same
    # whatever order it was given in. The first part holds the options an answer chooses among
    # (the position-bias report reads it). A type whose options are not such a list (pairwise:
    # two keys) overrides ``order_parts`` and ``apply_order``.
    shown_order_parts: ClassVar[tuple[str, ...]] = ()
    # What the position-bias report calls the option shown first of that part.
    first_shown: ClassVar[str] = "the option shown first"
    # The words the page labels options by their place (pairwise: A1, A2). Where the order is
    # drawn, a worker may have seen either option under either word, so the importer warns when
    # a gold explanation uses them: an explanation names options by their content.
    shown_position_names: ClassVar[tuple[str, ...]] = ()

    def order_parts(self, payload: Mapping[str, Any]) -> dict[str, list[Any]]:
        """Each part's option ids in import order (``shown_order_parts``)."""
        return {part: [option["id"] for option in payload.get(part) or ()] for part in self.shown_order_parts}

    def apply_order(self, payload: Mapping[str, Any], order: Mapping[str, list[Any]]) -> Mapping[str, Any]:
        """The payload with each part's options in ``order`` (a new mapping; ``payload`` is left
        as it is). Options the order does not name keep their import order after those it
        does, so an item edited after the draw still shows every option."""
        shown = dict(payload)
        for part in self.shown_order_parts:
            options, wanted = payload.get(part), order.get(part)
            if not options or not wanted:
                continue
            rank = {option_id: n for n, option_id in enumerate(wanted)}
            shown[part] = sorted(options, key=lambda o: rank.get(o["id"], len(rank)))
        return shown

    def chosen_options(self, answer: Mapping[str, Any], *, options: Sequence[Any]) -> list[str]:
        """The options of ``options`` (the ids of the first shown-order part) that ``answer``
        chose, in the order of ``options``: the values of its "choice" and "choices" fields that
        name one. None of them for a tie ("equal") or "None": such an answer picks no position."""
        picked: set[str] = set()
        for f in self.answer_fields:
            value = answer.get(f.name)
            if f.kind == "choice" and isinstance(value, str | int):
                picked.add(str(value))
            elif f.kind == "choices" and isinstance(value, list | tuple):
                picked.update(str(v) for v in value)
        return [str(option) for option in options if str(option) in picked]

    def answer_as_seen(self, answer: Mapping[str, Any], *, order: Mapping[str, Sequence[Any]] | None) -> str | None:
        """The answer in the terms of the page its worker answered on, whose options stood in
        ``order`` (``Assignment.shown_order``): which of the shown places it chose, e.g. "the
        option shown 2nd of 3". None when no order was stored (import order: the stored words
        say it). A type whose page names places in words of its own (pairwise: A1 and A2)
        overrides it."""
        part = self.shown_order_parts[0] if self.shown_order_parts else None
        shown = list((order or {}).get(part) or ()) if part else []
        if not shown:
            return None
        chosen = self.chosen_options(answer, options=shown)
        if not chosen:
            return "None" if self._answered_none(answer) else self.label_display(answer)
        places = [_ordinal(shown.index(option) + 1) for option in chosen]
        if len(places) == 1:
            return f"the option shown {places[0]} of {len(shown)}"
        return f"the options shown {', '.join(places[:-1])} and {places[-1]} of {len(shown)}"

    def answer_as_stored(self, answer: Mapping[str, Any]) -> str:
        """The answer as the record holds it, options named by their import ids whatever order
        they were shown in, e.g. "choice: c2" or "key_points: kp_1, kp_3"; the type's label
        words when it has no option fields."""
        parts = []
        for f in self.answer_fields:
            if f.kind not in ("choice", "choices") or f.name not in answer:
                continue
            value = answer[f.name]
            if isinstance(value, list | tuple):
                value = ", ".join(map(str, value)) or ("none" if self._answered_none(answer) else "–")
            parts.append(f"{f.name}: {value}")
        return "; ".join(parts) if parts else self.label_display(answer)

    @staticmethod
    def _answered_none(answer: Mapping[str, Any]) -> bool:
        # A set answered "None" is stored as {"none": true} with an empty list; a known answer
        # of None as ["none"].
        return answer.get("none") is True or any(v == ["none"] for v in answer.values())

    def label_display_as_shown(self, answer: Mapping[str, Any], *, order: Mapping[str, Any] | None) -> str:
        """``label_display`` in the words of the page answered on, options in the drawn ``order``
        (``Assignment.shown_order``); differs only where labels name places on the page."""
        return self.label_display(answer)


def _ordinal(n: int) -> str:
    """1st, 2nd, 3rd, 4th … 11th, 12th, 13th, 21st."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
