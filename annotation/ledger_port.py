"""What the crowd engine tells the ledger of money owed to workers, which lies above it
(``recruiting``, docs/development.md, "Layers"): the ledger registers when Django loads it
(``recruiting.apps``), so that the engine never imports it.

The engine says, in the transaction that changes an answer's standing, so that an answer is never
stored, rejected or changed without what it earned following it:

- ``answer_stored``: a new answer was stored (``counted``: it holds a place of the item);
- ``answer_counts_again``: an answer counts again (its rejected work approved);
- ``answer_uncounted``: an assignment's answer stopped counting (rejected) or was replaced by a
  revision (``answer_counts_again`` follows for the new one).

A platform without a ledger installed records nothing: every call then does nothing.
"""

from __future__ import annotations

from typing import Any, Protocol

from annotation.models import Annotation, Assignment


class Ledger(Protocol):
    def answer_stored(self, *, annotation: Annotation, assignment: Assignment, task: Any, counted: bool) -> None: ...
    def answer_counts_again(self, *, annotation: Annotation) -> None: ...
    def answer_uncounted(self, *, assignment: Assignment) -> None: ...


_LEDGER: list[Ledger] = []


def ledger_port_register(ledger: Ledger) -> None:
    """The ledger told of answers (one; registering again replaces it, as a reloaded app does)."""
    _LEDGER[:] = [ledger]


def answer_stored(*, annotation: Annotation, assignment: Assignment, task: Any, counted: bool) -> None:
    for ledger in _LEDGER:
        ledger.answer_stored(annotation=annotation, assignment=assignment, task=task, counted=counted)


def answer_counts_again(*, annotation: Annotation) -> None:
    for ledger in _LEDGER:
        ledger.answer_counts_again(annotation=annotation)


def answer_uncounted(*, assignment: Assignment) -> None:
    for ledger in _LEDGER:
        ledger.answer_uncounted(assignment=assignment)
