"""What a task type reads from a submission: the answer's declared fields, one parser for form
fields and JSON alike, the context validation may depend on, and the cleaned answer (or the
errors per field)."""

from __future__ import annotations

import json
from collections.abc import Iterable, KeysView, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable


class AnswerInvalid(ValueError):
    """An answer that fails validation; ``errors`` maps form field names to messages."""

    def __init__(self, errors: Mapping[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = dict(errors)


@dataclass(frozen=True)
class CleanAnswer:
    answer: dict[str, Any]
    reason: str = ""
    # Client metrics the task type accepted with the answer (e.g. playback events), stored with
    # the annotation (``Annotation.client["metrics"]``) and exported beside it.
    metrics: dict[str, Any] = field(default_factory=dict)


# Kinds of answer fields: one choice (text), several choices (a list of texts), free text, or a
# JSON document (client metrics such as playback events; a form sends it as JSON text).
FieldKind = Literal["choice", "choices", "text", "json"]
@dataclass(frozen=True)
class AnswerField:
    name: str
    kind: FieldKind
    description: str
    required: bool = True


@dataclass(frozen=True)
class MediaFacts:
    """What the server knows of one media file of the item, for the assignment being answered:
    its length (read from the file when stored) and size, the requests that fetched it for this
    assignment and the bytes they sent, and the starts of playback the player reported."""

    key: str
    duration: float | None = None
    fetches: int = 0
    first_fetched_at: datetime | None = None
    plays: int = 0
    first_played_at: datetime | None = None
    last_played_at: datetime | None = None
    size: int | None = None  # bytes; None: not known, and no check of the bytes sent
    # Bytes of the file sent for the assignment (their union over every request); None where
    # they were not counted (a fetch made before the platform counted them).
    served: int | None = 0


@dataclass(frozen=True)
class AnswerContext:
    """What validation may depend on besides the answer and the item."""

    # The project's options, cleaned by the task type (defaults filled in).
    options: Mapping[str, Any] = field(default_factory=dict)
    # The worker's presentation variant in this project (e.g. "listening" or "reading").
    variant: str = ""
    # True when the worker changes an answer given before (rules about how the item was taken in,
    # such as hearing the audio to the end, were checked on the first answer).
    revising: bool = False
    # What the server saw, for claims a client makes (a listen needs the time it takes): when
    # the item was handed out, when the answer arrived, and the item's media files by key (see
    # MediaFacts). Unset when an answer is checked on its own.
    handed_out_at: datetime | None = None
    received_at: datetime | None = None
    media: Mapping[str, MediaFacts] = field(default_factory=dict)


# The context of an answer checked on its own (tests, tools): no options, no variant.
NO_CONTEXT = AnswerContext()


@runtime_checkable
class MultiValued(Protocol):
    """Form data whose fields may repeat (Django's QueryDict)."""

    def getlist(self, key: str) -> list[Any]: ...


class AnswerData:
    """A submission read the same way whether it came as form fields (a QueryDict, where a
    multi-valued field repeats) or as JSON (where it is a list), so that a task type has one
    parser for both."""

    def __init__(self, data: Mapping[str, Any] | None) -> None:
        self._data: Mapping[str, Any] = data if data is not None else {}
        # A form's fields (Django's QueryDict) may repeat; getlist reads every value.
        self._form: MultiValued | None = data if isinstance(data, MultiValued) else None

    @classmethod
    def wrap(cls, data: Any) -> AnswerData:
        return data if isinstance(data, AnswerData) else cls(data)

    def __contains__(self, name: str) -> bool:
        return name in self._data

    def keys(self) -> KeysView[str]:
        return self._data.keys()

    def raw(self, name: str) -> Any:
        return self._data.get(name)

    def text(self, name: str) -> str | None:
        """The field as text ("" when absent); None when it is not text (a JSON list, say)."""
        value = self._data.get(name)
        if value is None:
            return ""
        # JSON clients can send any type; only text is text.
        return value if isinstance(value, str) else None

    def choices(self, name: str) -> list[str] | None:
        """Every value of a multi-valued field, in order, blanks dropped; None when a JSON value
        is neither a list of texts nor one text."""
        values: list[Any]
        if self._form is not None:
            values = self._form.getlist(name)
        else:
            value = self._data.get(name)
            if value is None:
                values = []
            elif isinstance(value, str):
                values = [value]
            elif isinstance(value, list | tuple) and all(isinstance(v, str | int) and not isinstance(v, bool) for v in value):
                values = [str(v) for v in value]
            else:
                return None
        return [v.strip() for v in values if str(v).strip()]

    def document(self, name: str) -> tuple[Any, str]:
        """A JSON field: (value, "") or (None, problem). A form sends it as JSON text; an absent or
        empty field is None without a problem."""
        value = self._data.get(name)
        if isinstance(value, str):
            if not value.strip():
                return None, ""
            try:
                return json.loads(value), ""
            except (ValueError, RecursionError):
                return None, "Must be a JSON document."
        return value, ""

    def read(self, fields: Iterable[AnswerField]) -> tuple[dict[str, Any], dict[str, str]]:
        """Typed values of the declared fields, and a message per field of the wrong type."""
        values: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for f in fields:
            if f.kind == "choice" and self._form is not None and len(self._form.getlist(f.name)) > 1:
                # A form that sends one choice twice asks for two answers: refuse, never pick one.
                errors[f.name] = "Choose one only."
                values[f.name] = ""
            elif f.kind in ("choice", "text"):
                text = self.text(f.name)
                if text is None:
                    errors[f.name] = "Must be text."
                    text = ""
                values[f.name] = text.strip() if f.kind == "choice" else text
            elif f.kind == "choices":
                chosen = self.choices(f.name)
                if chosen is None:
                    errors[f.name] = "Must be a list of choices."
                    chosen = []
                values[f.name] = chosen
            else:
                value, problem = self.document(f.name)
                if problem:
                    errors[f.name] = problem
                values[f.name] = value
        return values, errors


# The choice that says none of the options applies; it goes alone.
NONE = "none"


def choices_problem(chosen: Sequence[str], known: Sequence[str], *, required: str, clash: str, noun: str) -> str:
    """What is wrong with a set-valued answer whose options may be replaced by an exclusive
    "None" (``NONE``): ``required`` when nothing was chosen, ``clash`` when None came with
    options, else the unknown ids named after ``noun``; empty when the answer is good."""
    if not chosen:
        return required
    if NONE in chosen and len(chosen) > 1:
        return clash
    unknown = [c for c in chosen if c != NONE and c not in known]
    if unknown:
        return f"Unknown {noun} id{'s' if len(unknown) > 1 else ''}: {', '.join(unknown[:5])}."
    return ""

