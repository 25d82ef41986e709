"""The contract every task type fulfils.

A task type owns everything that differs between kinds of annotation work: the schema of an
item's payload (checked on import), the answer form and its server-side validation, the template
partial that renders an item, the mapping of answers to the long frame, and the export columns.
The assignment engine, the API and the dashboards only talk to this interface.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar


class FieldError(ValueError):
    """An import record or answer field that fails validation."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


class AnswerInvalid(ValueError):
    """An answer that fails validation; ``errors`` maps form field names to messages."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = dict(errors)


@dataclass(frozen=True)
class CleanItem:
    external_id: str
    payload: dict[str, Any]
    gold: Any = None


@dataclass(frozen=True)
class CleanAnswer:
    answer: dict[str, Any]
    reason: str = ""


@dataclass(frozen=True)
class CrowdAnswer:
    """One label collected elsewhere, as the task type reads it from a results file."""

    item_id: str
    answer: dict[str, Any]
    reason: str
    # What the task type needs to create the item when the project does not have it yet.
    item_source: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CorpusArgument:
    """An argument of the imported corpus, as task types see it (no database access here)."""

    id: str
    text: str
    topic: str
    prompt: str
    stance: str


# Looks up arguments of the corpus by id; ids it does not know are left out of the answer.
CorpusLookup = Callable[[Iterable[str]], dict[str, CorpusArgument]]


def shorten(text: str, length: int) -> str:
    """``text`` on one line, cut at a word boundary to at most ``length`` characters (ending
    with an ellipsis when cut)."""
    flat = " ".join(str(text).split())
    if len(flat) <= length:
        return flat
    cut = flat[: max(length - 1, 1)]
    space = cut.rfind(" ")
    # A word boundary only when it keeps most of the room; a long token (a URL) is cut inside.
    if space >= len(cut) * 2 // 3:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


class CrowdItemError(ValueError):
    """An item of a crowd results file that cannot be built; names the item and the field."""

    def __init__(self, item_id: str, field: str | None, message: str) -> None:
        super().__init__(message)
        self.item_id, self.field, self.message = item_id, field, message


@dataclass(frozen=True)
class Shortcut:
    keys: str
    action: str


@dataclass(frozen=True)
class ImportField:
    name: str
    required: bool
    description: str


@dataclass(frozen=True)
class ExportContext:
    """What an export row can draw on besides the answer itself."""

    item_external_id: str
    payload: dict[str, Any]
    extra: dict[str, Any] = field(default_factory=dict)


class TaskType(ABC):
    slug: ClassVar[str]
    name: ClassVar[str]
    description: ClassVar[str] = ""
    # Template holding a ``{% partialdef item %}`` (the item) and ``{% partialdef answer %}``.
    template: ClassVar[str]
    default_guidelines: ClassVar[str] = ""
    import_fields: ClassVar[tuple[ImportField, ...]] = ()
    shortcuts: ClassVar[tuple[Shortcut, ...]] = ()
    # Admin pages of the task type's own that add items to a project: (URL name taking the
    # project's id, link text); generic pages list them without naming task types.
    item_tools: ClassVar[tuple[tuple[str, str], ...]] = ()
    # Columns of the raw annotation export, in order, after the common ones.
    export_columns: ClassVar[tuple[str, ...]] = ()
    # When an answer is one row of the long frame made of these answer keys (the first being the
    # label), the frame is read key by key in the database instead of through long_rows.
    answer_columns: ClassVar[tuple[str, ...]] = ()
    # Whether long_rows reads the item payload (e.g. to list the options not chosen); when not,
    # the frame builder never loads payloads.
    long_rows_use_payload: ClassVar[bool] = False

    @abstractmethod
    def clean_item(self, record: Mapping[str, Any]) -> CleanItem:
        """Validate one import record; raise FieldError naming the offending field."""

    @abstractmethod
    def clean_answer(self, data: Mapping[str, Any], *, payload: Mapping[str, Any]) -> CleanAnswer:
        """Validate a submitted answer; raise AnswerInvalid with a message per field."""

    def initial_answer(
        self, *, payload: Mapping[str, Any], previous: tuple[Mapping[str, Any], Mapping[str, Any]] | None
    ) -> dict[str, Any]:
        """Values to preselect in the form; ``previous`` is (payload, answer) of the worker's last
        annotation in the project, if any."""
        return {}

    @abstractmethod
    def long_rows(self, *, payload: Mapping[str, Any], answer: Mapping[str, Any]) -> list[dict]:
        """The answer as rows of the long frame: each row has ``label`` and maybe more columns
        (set-valued answers give one row per option as binary questions)."""

    @abstractmethod
    def export_row(self, ctx: ExportContext, answer: Mapping[str, Any], reason: str) -> dict:
        """Task-specific export columns (``export_columns``) for one annotation."""

    def label_display(self, answer: Mapping[str, Any]) -> str:
        return str(answer)

    def item_columns(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Columns of the item frame that reports need besides the item id."""
        return {}

    def item_summary(self, payload: Mapping[str, Any], *, length: int = 120) -> str:
        """What the item shows, as one plain line of at most ``length`` characters, for staff
        tables (shown escaped). Optional: empty when the type has nothing short to say."""
        return ""

    # Crowd results collected elsewhere (optional): a task type that supports them lists its
    # columns in ``crowd_fields`` and overrides the two methods below.
    crowd_fields: ClassVar[tuple[ImportField, ...]] = ()

    def clean_crowd_record(self, record: Mapping[str, Any]) -> CrowdAnswer:
        """Validate the task-specific part of one results row; raise FieldError."""
        raise FieldError(None, f"the {self.name} task type does not import crowd results")

    def crowd_items(self, sources: Mapping[str, Mapping[str, Any]], *, corpus: CorpusLookup) -> dict[str, CleanItem]:
        """Build the items a results file refers to but the project lacks, with the help of the
        imported corpus; raise CrowdItemError."""
        raise CrowdItemError(next(iter(sources), ""), None, f"the {self.name} task type does not import crowd results")
