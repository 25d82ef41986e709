"""Prompts, their reference responses and the candidate responses to score, as import records
and as item payloads (no database access here).

An item is one response: the prompt it answers (its id, its type and its text), the prompt's
reference responses in file order (for the automatic content scores; raters never see them) and
the response itself (its id, the speaker, the key of its audio file, its automatic and its
manual transcript). A corpus comes as three files in a folder, ``prompts``, ``references`` and
``responses`` (each ``.csv`` or ``.jsonl``), which :func:`folder_records` joins into one import
record per response; every error names the file, the line and the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from annotation.importers import ImportFailed, RowError, check_record, decode, read_records
from annotation.task_types import limits
from annotation.task_types.base import FieldError, record_text

# The study's two kinds of prompt: tell the story of six pictures; summarise what was heard.
PROMPT_TYPES = {"narration": "picture narration", "summary": "listen and summarise"}
TEXT_LIMIT = limits.TRANSCRIPT
FILES = ("prompts", "references", "responses")


def _prompt_type(record: Mapping[str, Any], name: str) -> str:
    value = record_text(record, name).lower()
    if value not in PROMPT_TYPES:
        raise FieldError(name, f"must be one of {', '.join(PROMPT_TYPES)}, got {value!r}")
    return value


def _references(value: Any) -> list[dict[str, str]]:
    """A prompt's references: a JSON list of texts or of {"id", "text"} (a JSON string in CSV)."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise FieldError("references", "must be a JSON list of texts or of {\"id\", \"text\"}") from None
    if not isinstance(value, list):
        raise FieldError("references", "must be a list of texts or of {\"id\", \"text\"}")
    out = []
    for n, ref in enumerate(value, 1):
        if isinstance(ref, str):
            ref = {"id": str(n), "text": ref}
        if not isinstance(ref, Mapping):
            raise FieldError(f"references[{n}]", "must be a text or an object with id and text")
        try:
            out.append({"id": record_text(ref, "id", required=False) or str(n),
                        "text": record_text(ref, "text", limit=TEXT_LIMIT)})
        except FieldError as exc:
            raise FieldError(f"references[{n}].{exc.field}", exc.message) from None
    ids = [r["id"] for r in out]
    if len(set(ids)) != len(ids):
        raise FieldError("references", "two references have the same id")
    return out


def clean_response(record: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """(external id, payload) of one import record; raises FieldError naming the field."""
    response_id = record_text(record, "response_id")
    response = {
        "id": response_id,
        "speaker": record_text(record, "speaker", required=False),
        "audio": record_text(record, "audio", required=False),
        "asr_transcript": record_text(record, "asr_transcript", required=False, limit=TEXT_LIMIT),
        "transcript": record_text(record, "transcript", required=False, limit=TEXT_LIMIT),
    }
    if not (response["audio"] or response["asr_transcript"] or response["transcript"]):
        raise FieldError("audio", "a response needs its audio, its ASR transcript or its manual transcript")
    prompt = {"id": record_text(record, "prompt_id"), "type": _prompt_type(record, "prompt_type"),
              "text": record_text(record, "prompt", limit=TEXT_LIMIT)}
    payload = {"prompt": prompt, "references": _references(record.get("references")), "response": response}
    return record_text(record, "id", required=False) or response_id, payload


# --- a corpus in three files --------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    records: list[tuple[int, dict[str, Any]]]  # (line in the responses file, import record)
    audio: Path | None  # the folder's audio/ sub-folder, when it has one


def _find(folder: Path, name: str) -> Path:
    found = [folder / f"{name}{ext}" for ext in (".csv", ".jsonl") if (folder / f"{name}{ext}").is_file()]
    if len(found) != 1:
        problem = "has both" if found else "has neither"
        raise ImportFailed([RowError(None, name, f"{folder} {problem} {name}.csv and {name}.jsonl")])
    return found[0]


def _rows(path: Path) -> list[tuple[int, Mapping[str, Any]]]:
    """The file's records, each checked as imports are (no NUL, no over-long text); errors name
    the file, the line and the field."""
    unit = f"{path.name} line"
    try:
        records = list(read_records(decode(path), "csv" if path.suffix == ".csv" else "jsonl"))
    except ImportFailed as exc:
        raise ImportFailed([RowError(e.line, e.field, e.message, unit=unit) for e in exc.errors],
                           total=exc.total) from None
    errors = []
    for line, record in records:
        try:
            check_record(record)
        except FieldError as exc:
            errors.append(RowError(line, exc.field, exc.message, unit=unit))
    if errors:
        raise ImportFailed(errors[:50], total=len(errors))
    return records


def folder_records(folder: Path) -> Corpus:
    """One import record per response of the folder's three files; ImportFailed lists every
    problem (file, line, field) and nothing is returned then."""
    if not folder.is_dir():
        raise ImportFailed([RowError(None, "folder", f"{folder} is not a folder")])
    paths = {name: _find(folder, name) for name in FILES}
    errors: list[RowError] = []

    def fail(path: Path, line: int, field: str | None, message: str) -> None:
        errors.append(RowError(line, field, message, unit=f"{path.name} line"))

    prompts: dict[str, dict[str, str]] = {}
    for line, row in _rows(paths["prompts"]):
        try:
            pid = record_text(row, "prompt_id")
            entry = {"prompt_type": _prompt_type(row, "type"), "prompt": record_text(row, "text", limit=TEXT_LIMIT)}
            if pid in prompts:
                raise FieldError("prompt_id", f"prompt {pid!r} appears twice")
            prompts[pid] = entry
        except FieldError as exc:
            fail(paths["prompts"], line, exc.field, exc.message)
    references: dict[str, list[dict[str, str]]] = {}
    for line, row in _rows(paths["references"]):
        try:
            pid = record_text(row, "prompt_id")
            if pid not in prompts:
                raise FieldError("prompt_id", f"no prompt {pid!r} in {paths['prompts'].name}")
            refs = references.setdefault(pid, [])
            rid = record_text(row, "reference_id")
            if any(r["id"] == rid for r in refs):
                raise FieldError("reference_id", f"reference {rid!r} of prompt {pid!r} appears twice")
            refs.append({"id": rid, "text": record_text(row, "text", limit=TEXT_LIMIT)})
        except FieldError as exc:
            fail(paths["references"], line, exc.field, exc.message)
    records: list[tuple[int, dict[str, Any]]] = []
    seen: set[str] = set()
    for line, row in _rows(paths["responses"]):
        try:
            pid = record_text(row, "prompt_id")
            if pid not in prompts:
                raise FieldError("prompt_id", f"no prompt {pid!r} in {paths['prompts'].name}")
            record = {**dict(row), **prompts[pid], "references": references.get(pid, [])}
            external_id, _ = clean_response(record)
            if external_id in seen:
                raise FieldError("response_id", f"response {external_id!r} appears twice")
            seen.add(external_id)
            records.append((line, record))
        except FieldError as exc:
            fail(paths["responses"], line, exc.field, exc.message)
    if errors:
        raise ImportFailed(errors[:50], total=len(errors))
    audio = folder / "audio"
    return Corpus(records=records, audio=audio if audio.is_dir() else None)
