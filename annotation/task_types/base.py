"""The contract every task type fulfils.

A task type owns everything that differs between kinds of annotation work: the schema of an
item's payload (checked on import), the answer's fields (read the same way from a web form and
from JSON), its server-side validation together with the client metrics it accepts (e.g. audio
playback events), the template that renders an item, the label level and categories, the mapping
of answers to the long frame, the export columns, a typed form for its project options, the
media its items use, its pages and commands, and a demo. The assignment engine, the API, the
dashboards, the frame builder, the admin and ``load_demo`` only talk to this interface; each task
type is an app of its own (``task_types/<slug>/``) that registers itself, never listed by hand.

This module is the contract's one public face: it re-exports what a task type needs from
``answers`` (reading and validating a submission) and ``records`` (import records and exports).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from annotation.task_types.answers import (
    NO_CONTEXT,
    NONE,
    AnswerContext,
    AnswerData,
    AnswerField,
    AnswerInvalid,
    CleanAnswer,
    FieldKind,
    MediaFacts,
    choices_problem,
)
from annotation.task_types.records import (
    CleanItem,
    CrowdAnswer,
    CrowdItemError,
    ExportContext,
    FieldError,
    FilesImport,
    ImportField,
    record_text,
    seeded_sample,
    shorten,
)
from annotation.task_types.shown_order import ShownOrder

if TYPE_CHECKING:
    from django import forms

    from annotation.task_types.gold import CleanGold, GoldPolicy, GoldScore

__all__ = [
    "LEVELS",
    "NO_CONTEXT",
    "NONE",
    "AnswerContext",
    "AnswerData",
    "AnswerField",
    "AnswerInvalid",
    "CleanAnswer",
    "CleanItem",
    "CrowdAnswer",
    "CrowdItemError",
    "DemoContext",
    "Example",
    "ExportContext",
    "FieldError",
    "FieldKind",
    "FilesImport",
    "ImportField",
    "MediaFacts",
    "Shortcut",
    "TaskType",
    "choices_problem",
    "record_text",
    "seeded_sample",
    "shorten",
]

LEVELS = ("nominal", "ordinal", "interval", "set")
# How long a stored item group may be (``Item.group``); a longer one is cut to this.
GROUP_LENGTH = 200


@dataclass(frozen=True)
class Shortcut:
    keys: str
    action: str
    # The presentation variants the key works in (e.g. only where a speech is heard); all when empty.
    variants: tuple[str, ...] = ()

    def applies_to(self, variant: str) -> bool:
        return not self.variants or variant in self.variants


@dataclass(frozen=True)
class Example:
    """A small worked example of a task type: import records, a valid answer in both shapes (JSON
    and form fields) and an invalid one. The API documentation shows it, and the contract test
    runs every registered type through the whole workflow with it."""

    records: list[dict[str, Any]]  # at least two import records (JSON)
    answer: dict[str, Any]  # a valid answer as JSON
    form: list[tuple[str, str]]  # the same answer as form fields (names may repeat)
    invalid: dict[str, Any]  # an answer the type refuses
    invalid_field: str  # the field its error names
    options: dict[str, Any] = field(default_factory=dict)  # project options it needs


@dataclass(frozen=True)
class DemoContext:
    """What a task type's demo hook gets from ``load_demo``."""

    data_dir: Path  # the shared data folder (may be missing: fall back to fixtures)
    owner: Any  # the demo admin, recorded as the projects' creator
    annotators: list[Any]  # the demo annotators, made members of every demo project
    log: Callable[[str], None]


class TaskType(ShownOrder, ABC):
    slug: ClassVar[str]
    name: ClassVar[str]
    description: ClassVar[str] = ""
    # Template of the item and its answer fields, included inside the annotation page's form
    # (``annotation/annotate.html``), which adds the submit and skip buttons.
    template: ClassVar[str]
    default_guidelines: ClassVar[str] = ""
    import_fields: ClassVar[tuple[ImportField, ...]] = ()
    shortcuts: ClassVar[tuple[Shortcut, ...]] = ()
    # Admin pages of the task type's own that add items to a project: (URL name taking the
    # project's id, link text); generic pages list them without naming task types.
    item_tools: ClassVar[tuple[tuple[str, str], ...]] = ()
    # Kinds of media files the type's items use ("audio": the files ``media_keys`` names, stored
    # per project); the project's admin page offers an upload only for a type that declares one.
    media: ClassVar[tuple[str, ...]] = ()
    # The type's own pages: the dotted path of a URLconf module, mounted at the site's root by the
    # registry (``annotation.task_types.type_urlpatterns``); its paths name their full address.
    urls: ClassVar[str | None] = None
    # The management commands the type's app provides, checked by the contract test.
    commands: ClassVar[tuple[str, ...]] = ()
    # Columns of the raw annotation export, in order, after the common ones.
    export_columns: ClassVar[tuple[str, ...]] = ()
    # When an answer is one row of the long frame made of these answer keys, the frame is read key
    # by key in the database instead of through long_rows: the first key's values become the
    # frame's ``label`` column, the others keep their names.
    answer_columns: ClassVar[tuple[str, ...]] = ()
    # Whether long_rows reads the item payload (e.g. to list the options not chosen); when not,
    # the frame builder never loads payloads.
    long_rows_use_payload: ClassVar[bool] = False
    # The answer's fields, read by one parser (AnswerData.read) from a form or from JSON.
    answer_fields: ClassVar[tuple[AnswerField, ...]] = ()
    # Level of measurement of the long frame's ``label``: nominal, ordinal or interval labels
    # (ordinal and interval in the order of ``categories``), or "set": each option of an item is
    # a binary question (rows with ``option`` and a 0/1 ``label``).
    level: ClassVar[str] = "nominal"
    # (value, text) of the labels in their order; empty when options differ per item (sets).
    categories: ClassVar[tuple[tuple[str, str], ...]] = ()
    # Answer fields that carry client metrics (e.g. playback events), documented for API users.
    metric_fields: ClassVar[tuple[str, ...]] = ()
    # Static scripts and style sheets the item needs (e.g. an audio player, columns of long
    # texts), loaded by the annotation page.
    scripts: ClassVar[tuple[str, ...]] = ()
    styles: ClassVar[tuple[str, ...]] = ()
    # A form (django.forms.Form) whose fields are the project's options with their initial
    # values as defaults; the admin shows it instead of a raw JSON box.
    options_form: ClassVar[type[forms.Form] | None] = None
    # The type's own import column that holds a known answer kept with the item for the analyses
    # and exports (pairwise: ``gold``). It makes no gold question (``item_kind`` and
    # ``gold_answer`` do); the importer says so when a real item carries it.
    known_answer_column: ClassVar[str] = ""
    # The answer fields a known answer (gold question, training item, adjudication) holds and
    # scoring compares (``annotation.task_types.gold``): e.g. ("label",) for a pair, ("titles",)
    # for a comprehension item. Their kinds ("choice" or "choices") decide the scoring. A type
    # that declares none gets its label (the first of ``answer_columns``) when that is a choice.
    gold_fields: ClassVar[tuple[str, ...]] = ()
    # The type's page that reviews reasons across workers, as (URL name taking the project's
    # slug, anchor), which the worker page links beside reasons other workers also gave; None:
    # the type has none.
    reason_review: ClassVar[tuple[str, str] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.gold_fields and cls.answer_columns:
            label = next((f for f in cls.answer_fields if f.name == cls.answer_columns[0]), None)
            if label is not None and label.kind in ("choice", "choices"):
                cls.gold_fields = (label.name,)

    @abstractmethod
    def clean_item(self, record: Mapping[str, Any]) -> CleanItem:
        """Validate one import record; raise FieldError naming the offending field."""

    @abstractmethod
    def clean_answer(self, data: Mapping[str, Any] | AnswerData, *, payload: Mapping[str, Any],
                     context: AnswerContext = NO_CONTEXT) -> CleanAnswer:
        """Validate a submitted answer (form fields or JSON; read it with ``AnswerData.wrap``)
        with its client metrics; raise AnswerInvalid with a message per field."""

    def form_values(self, data: Mapping[str, Any] | AnswerData) -> dict[str, Any]:
        """What the form shows again after a refused submission: the declared fields, typed."""
        values, _ = AnswerData.wrap(data).read(self.answer_fields)
        if "reason" in AnswerData.wrap(data) and "reason" not in values:
            values["reason"] = AnswerData.wrap(data).text("reason") or ""
        return values

    # --- project options --------------------------------------------------------------------

    def option_defaults(self) -> dict[str, Any]:
        if self.options_form is None:
            return {}
        form = self.options_form()
        return {name: form.get_initial_for_field(f, name) for name, f in form.fields.items()}

    def clean_options(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        """The project's options with defaults filled in; raise ValueError naming bad ones.
        Keys the form does not know (records kept by other tools) pass through unchanged."""
        raw = dict(raw or {})
        if self.options_form is None:
            return raw
        defaults = self.option_defaults()
        data = {**defaults, **{k: v for k, v in raw.items() if k in defaults}}
        form = self.options_form(data=data)
        if not form.is_valid():
            problems = "; ".join(f"{k}: {' '.join(str(e) for e in v)}" for k, v in form.errors.items())
            raise ValueError(f"project options of the {self.name} task type: {problems}")
        return {**raw, **form.cleaned_data}

    def variant(self, *, options: Mapping[str, Any], project_id: int, worker_id: int) -> str:
        """The presentation a worker gets in a project (e.g. listening or reading); the same for
        every item of the project, so one worker never sees both."""
        return ""

    def worker_payload(self, payload: Mapping[str, Any], *, options: Mapping[str, Any], variant: str) -> Mapping[str, Any]:
        """What of an item's payload a worker with this variant may receive: every page, API
        answer and re-shown form that carries an item to a worker goes through this (e.g. no
        transcript for a worker who is to hear the speech). The default is the whole payload."""
        return payload

    def admin_tools(self) -> frozenset[str]:
        """The platform's project tools this type needs, as its declarations say: ``"media"``
        (the *Upload audio* page) when its items use audio (``media``), ``"crowd"`` (*Import
        crowd results*) when it reads results collected elsewhere (``crowd_fields``). The
        project's admin page offers these and no others, beside the tools every type has
        (import items, create annotators) and the type's own ``item_tools``."""
        tools = set()
        if "audio" in self.media:
            tools.add("media")
        if self.crowd_fields:
            tools.add("crowd")
        return frozenset(tools)

    def files_imports(self) -> Mapping[str, FilesImport]:
        """How the type imports its own files as items (each run as an import job), by name."""
        return {}

    def admin_urls(self, model_admin: Any) -> list[Any]:
        """The type's own admin pages (those ``item_tools`` names), mounted under the project
        admin; ``model_admin`` gives them its page frame (``tool_page``) and permission check
        (``require``). The default has none."""
        return []

    # --- media ------------------------------------------------------------------------------

    def media_keys(self, payload: Mapping[str, Any]) -> list[str]:
        """Keys of the project's media files an item uses (checked on import)."""
        return []

    def item_problems(self, payload: Mapping[str, Any], *, options: Mapping[str, Any]) -> dict[str, str]:
        """What makes a valid item unfit for this project's options ({field: message}), e.g. a
        speech without audio in a listening project; checked on import."""
        return {}

    # --- gold questions and training items --------------------------------------------------

    def group_of(self, payload: Mapping[str, Any]) -> str | None:
        """The group an item belongs to as a worker sees it (its topic, motion or prompt), or
        None when the type has none. A gold question is drawn from the group of the real item it
        stands in for, so that a change of topic does not give it away; items are stored with
        their group (``Item.group``, at most ``GROUP_LENGTH`` characters). The default: no groups."""
        return None

    def item_group(self, payload: Mapping[str, Any]) -> str | None:
        """The group to store with an item: ``group_of`` cut to ``GROUP_LENGTH``, None for none."""
        group = self.group_of(payload)
        return str(group)[:GROUP_LENGTH] if group not in (None, "") else None

    def gold_choices(self, payload: Mapping[str, Any], name: str) -> list[str] | None:
        """The values gold field ``name`` may take for an item (None: any; ``NONE`` is added
        for a "choices" field). The default: the ids of the first shown-order part's options,
        else the values of ``categories``."""
        parts = self.order_parts(payload)
        if parts:
            return [str(i) for i in next(iter(parts.values()))]
        return [value for value, _ in self.categories] or None

    def option_texts(self, payload: Mapping[str, Any]) -> dict[str, str]:
        """Each option of the shown-order parts by id, with the words staff read for it (e.g. on
        the adjudication page): its ``text`` unless a type says otherwise."""
        return {str(o["id"]): str(o.get("text") or "") for part in self.shown_order_parts
                for o in payload.get(part) or () if isinstance(o, Mapping) and "id" in o}

    def clean_gold(self, data: Mapping[str, Any], *, payload: Mapping[str, Any]) -> CleanGold:
        """Validate a known answer given on import or by a staff member: the gold fields (as
        one answer holds them) and, under ``accept``, a list of other answers that are also
        right. Raises FieldError naming the field."""
        from annotation.task_types.gold import clean_gold_fields

        if not self.gold_fields:
            raise FieldError("gold_answer", f"the {self.name} task type has no gold questions")
        kinds = {f.name: f.kind for f in self.answer_fields if f.name in self.gold_fields}
        return clean_gold_fields(data, kinds=kinds, choices=lambda name: self.gold_choices(payload, name))

    def example_gold(self) -> list[dict[str, Any]]:
        """Known answers of ``example()``'s first record, as imported (a set's None as ``["none"]``,
        which must be listed; default: the example answer's gold fields); each scores 1 as an answer."""
        answer = self.example().answer
        gold = {name: answer[name] for name in self.gold_fields if name in answer}
        return [gold] if gold and len(gold) == len(self.gold_fields) else []

    def score_gold(self, *, answer: Mapping[str, Any], gold: CleanGold, policy: GoldPolicy) -> GoldScore:
        """Score a worker's answer against a known answer (``annotation.task_types.gold``):
        exact for one choice, set overlap for several, exact or within one for an ordinal score."""
        from annotation.task_types.gold import score_answer

        kinds = {f.name: f.kind for f in self.answer_fields if f.name in self.gold_fields}
        return score_answer(answer, gold, kinds=kinds, policy=policy, ordinal=self.level == "ordinal")

    # --- bonuses ----------------------------------------------------------------------------

    def bonus_for(self, *, answer: Mapping[str, Any], gold: Any,
                  options: Mapping[str, Any]) -> tuple[Decimal, str] | tuple[Decimal, str, str] | None:
        """The bonus an answer earns, as (amount > 0, reason shown to staff and in the ledger),
        optionally with its currency (ISO code; USD when left out), or None. Called once per counted answer when it is submitted, with the item's ``gold``
        (None when the item has none) and the project's cleaned options, where a type keeps its
        bonus rate. Types whose answers are right or wrong by design (a selection whose true
        answer is the item's gold) override it; the default grants nothing."""
        return None

    def guidelines_notes(self, *, options: Mapping[str, Any]) -> tuple[str, ...]:
        """Plain sentences shown to workers after the project's guidelines, drawn from its
        cleaned options (a type that pays a bonus says how much); none by default."""
        return ()

    # --- demo -------------------------------------------------------------------------------

    def demo(self, ctx: DemoContext) -> None:  # noqa: B027 (optional: a type may have no demo)
        """Create (idempotently) the demo project(s) of this task type; optional."""

    @abstractmethod
    def example(self) -> Example:
        """A worked example (see ``Example``); every task type has one."""

    def initial_answer(
        self, *, payload: Mapping[str, Any], previous: tuple[Mapping[str, Any], Mapping[str, Any]] | None
    ) -> dict[str, Any]:
        """Values to preselect in the form; ``previous`` is (payload, answer) of the worker's last
        annotation in the project, if any."""
        return {}

    @abstractmethod
    def long_rows(self, *, payload: Mapping[str, Any], answer: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The answer as rows of the long frame: each row has ``label`` and maybe more columns
        (set-valued answers give one row per option as binary questions)."""

    @abstractmethod
    def export_row(self, ctx: ExportContext, answer: Mapping[str, Any], reason: str) -> dict[str, Any]:
        """Task-specific export columns (``export_columns``) for one annotation, from plain
        values. It must not change ``ctx`` or ``answer``: the export hands the same ones to
        answers of one item and to equal answers."""

    def label_display(self, answer: Mapping[str, Any]) -> str:
        return str(answer)

    def item_columns(self, payload: Mapping[str, Any]) -> dict[str, Any]:
        """Columns of the item frame that reports need besides the item id. A set-valued type
        may give ``options``, {option id: text}, which the agreement report shows by its options."""
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

    def crowd_items(self, sources: Mapping[str, Mapping[str, Any]]) -> dict[str, CleanItem]:
        """Build the items a results file refers to but the project lacks, from what the type's
        app holds (pairwise: its imported arguments), keyed by item id; raise CrowdItemError."""
        raise CrowdItemError(next(iter(sources), ""), None, f"the {self.name} task type does not import crowd results")

