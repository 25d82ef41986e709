"""Reading an argument corpus in UKPConvArg's ``arguments.tsv`` layout (``debate_title`` is the
prompt). No database access here: ``task_types.pairwise.corpus.arguments_import`` writes the rows."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.importers import (
    ID_MAX_LENGTH,
    MAX_REPORTED_ERRORS,
    ImportFailed,
    RowError,
    check_length,
    check_record,
    decode,
    read_records,
)
from annotation.task_types import limits
from annotation.task_types.base import FieldError

# Lengths of the corpus columns the values go to (topics' and arguments' external ids take
# ID_MAX_LENGTH, as items' do). SQLite ignores them; PostgreSQL refuses longer text.
PROMPT_MAX_LENGTH = limits.TOPIC
STANCE_MAX_LENGTH = limits.STANCE
AUTHOR_MAX_LENGTH = limits.NAME
ARGUMENT_COLUMNS = ("arg_id", "topic", "debate_title", "stance", "author", "text")


@dataclass(frozen=True)
class ArgumentRow:
    line: int
    arg_id: str
    topic: str
    prompt: str
    stance: str
    author: str
    text: str


def parse_arguments(data: bytes) -> list[ArgumentRow]:
    """Every row of the file, checked; raise ImportFailed naming line and field of each bad one."""
    rows: list[ArgumentRow] = []
    errors: list[RowError] = []
    seen: dict[str, int] = {}
    for line, record in read_records(decode(data), "tsv"):
        if len(errors) >= MAX_REPORTED_ERRORS:
            break
        missing = [c for c in ARGUMENT_COLUMNS if c not in record and c != "author"]
        if missing:
            raise ImportFailed([RowError(1, missing[0], "required column is missing")])
        values = {c: (record.get(c) or "").strip() for c in ARGUMENT_COLUMNS}
        try:
            check_record(record)
            for column, limit in (("arg_id", ID_MAX_LENGTH), ("topic", ID_MAX_LENGTH),
                                  ("debate_title", PROMPT_MAX_LENGTH), ("stance", STANCE_MAX_LENGTH),
                                  ("author", AUTHOR_MAX_LENGTH), ("text", limits.ARGUMENT)):
                check_length(column, values[column], limit)
        except FieldError as exc:
            errors.append(RowError(line, exc.field, exc.message))
            continue
        for column in ("arg_id", "topic", "debate_title", "text"):
            if not values[column]:
                errors.append(RowError(line, column, "must not be empty"))
                break
        else:
            if values["arg_id"] in seen:
                errors.append(RowError(line, "arg_id", f"duplicate id (first on line {seen[values['arg_id']]})"))
                continue
            seen[values["arg_id"]] = line
            rows.append(ArgumentRow(line, values["arg_id"], values["topic"], values["debate_title"],
                                    values["stance"], values["author"], record["text"].strip()))
    if errors:
        raise ImportFailed(errors)
    if not rows:
        raise ImportFailed([RowError(None, None, "the file holds no arguments")])
    return rows
