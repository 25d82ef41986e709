"""Comprehension questions as an import file (JSON lines), from a corpus of speeches and titles
(each a CSV file or a JSON list) or from the IBM Debater Recorded Debating Dataset V4:

    python -m task_types.comprehension.cli corpus speeches.csv titles.csv > items.jsonl
    python -m task_types.comprehension.cli ibm ../shared/data/ibm_recorded_debating_v4 > items.jsonl

or a seeded sample of N of those speeches, in id order (``--sample 40 --seed 2018``: the paper's
reading subset, for a reading project beside the listening project of every speech); and prints,
as JSON, the machine reference of the report against the IBM questions' gold (the pairs the
release judged; motions split with ``--dev-share`` and ``--split-seed``):

    python -m task_types.comprehension.cli reference ../shared/data/ibm_recorded_debating_v4

and the release's own counts of titles found at least once (``titles``; see ``ibm_title_counts``):

    python -m task_types.comprehension.cli titles ../shared/data/ibm_recorded_debating_v4

Speeches have ``id``, ``motion_id``, ``motion``, ``speaker``, ``stance`` (pro or con), ``audio``,
``transcript``, ``asr_transcript`` and ``sentences`` (a JSON list; default: split from the
transcript); titles have ``id``, ``motion_id``, ``stance``, ``title`` and ``text``. A command-line
tool, not a task type: the registry does not import it.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path
from typing import Any

from annotation.task_types.base import FieldError
from task_types.comprehension.corpus import ibm_questions, questions_from_corpus, sample_questions

# The columns questions are built from (the others are optional).
SPEECH_COLUMNS = ("id", "motion_id", "motion", "stance")
TITLE_COLUMNS = ("id", "motion_id", "stance", "title")


def read_rows(path: Path, columns: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """A JSON list of objects, or a CSV (TSV) file with a header row, read as imports are
    (``annotation.importers``: encodings, size limit, no NUL, no over-long text) and holding
    ``columns``; a bad file stops the tool with a message naming its line and field."""
    from annotation.importers import ImportFailed, check_record, decode, read_records

    try:
        text = decode(path)
        if path.suffix.lower() == ".json":
            rows = json.loads(text)
            if not isinstance(rows, list):
                raise SystemExit(f"{path}: expected a JSON list of objects")
            records = [(n, row) for n, row in enumerate(rows, 1)]
        else:
            records = list(read_records(text, "tsv" if path.suffix.lower() == ".tsv" else "csv"))
        for number, row in records:
            try:
                check_record(row if isinstance(row, dict) else {"": row})
                missing = [c for c in columns if c not in row] if isinstance(row, dict) else list(columns[:1])
                if missing:
                    raise FieldError(missing[0], "is missing (a row needs " + ", ".join(columns) + ")")
            except FieldError as exc:
                raise SystemExit(f"{path} line {number}, field '{exc.field}': {exc.message}") from None
    except ImportFailed as exc:
        raise SystemExit(f"{path}: {exc}") from None
    except (ValueError, RecursionError) as exc:
        raise SystemExit(f"{path}: not readable JSON ({exc})") from None
    out = [dict(row) for _, row in records]
    for row in out:
        if isinstance(row.get("sentences"), str) and row["sentences"]:
            try:
                row["sentences"] = json.loads(row["sentences"])
            except ValueError:
                raise SystemExit(f"{path}: a speech's sentences must be a JSON list") from None
    return out


def ibm_reference(folder: Path, *, dev_share: float = 0.5, split_seed: int = 0) -> dict[str, Any]:
    """The report's machine reference on the IBM questions against their gold, as the reading
    demo project (``manage.py load_demo``) gives it before anyone has answered."""
    import pandas as pd

    from task_types.comprehension.report import reference
    from task_types.comprehension.task import Comprehension

    task = Comprehension()
    rows = []
    for record in ibm_questions(folder):
        item = task.clean_item(record)
        rows.append({"item": item.external_id, "gold": item.gold, **task.item_columns(item.payload)})
    params = {"reference_labels": "gold", "dev_share": dev_share, "split_seed": split_seed}
    return reference(pd.DataFrame(), pd.DataFrame(rows), params)


def ibm_title_counts(folder: Path) -> dict[str, Any]:
    """The paper's "labeled as positive at least once" on the release's own annotation, beside the
    one-annotator reading. The release labels each (speech, iDebate point, sentence) with its
    annotators' votes and a label (``is-claim-mentioned-in-sentence``); a pair is *labelled
    positive* when some sentence of the speech has the positive label, *ticked* when some sentence
    has at least one positive vote. A title (a motion's point on one side) counts once, over the
    speeches that the release judged it in: ``titles``, ``labelled_positive_once``,
    ``ticked_once`` and the two shares; ``pairs``, ``pairs_labelled_positive`` and
    ``pairs_ticked`` over (speech, title) pairs."""
    with (folder / "speech-transcripts.csv").open(encoding="utf-8", newline="") as f:
        stance = {r["speech-id"]: r["speech-to-motion-polarity"].strip().lower() for r in csv.DictReader(f)}
    labelled: dict[tuple[str, tuple[str, str, str]], bool] = {}
    ticked: dict[tuple[str, tuple[str, str, str]], bool] = {}
    with (folder / "idebate-claim-to-sentence-matching.csv").open(encoding="utf-8", newline="") as f:
        for r in csv.DictReader(f):
            if r["speech-id"] not in stance:
                continue
            pair = (r["speech-id"], (r["motion-id"], stance[r["speech-id"]], r["idebate-point-id"]))
            positive = r["is-claim-mentioned-in-sentence"].strip().lower() == "true"
            labelled[pair] = labelled.get(pair, False) or positive
            ticked[pair] = ticked.get(pair, False) or int(r["positive-count"]) > 0
    titles = {title for _, title in labelled}
    once = {title for (_, title), value in labelled.items() if value}
    ticked_once = {title for (_, title), value in ticked.items() if value}
    return {
        "titles": len(titles), "labelled_positive_once": len(once), "ticked_once": len(ticked_once),
        "labelled_positive_once_share": len(once) / len(titles) if titles else None,
        "ticked_once_share": len(ticked_once) / len(titles) if titles else None,
        "pairs": len(labelled), "pairs_labelled_positive": sum(labelled.values()), "pairs_ticked": sum(ticked.values()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m task_types.comprehension.cli",
                                     description="Write comprehension questions as JSON lines for the item import.")
    sub = parser.add_subparsers(dest="source", required=True)
    ibm = sub.add_parser("ibm", help="from the IBM Debater Recorded Debating Dataset V4 folder")
    ibm.add_argument("folder", type=Path)
    corpus = sub.add_parser("corpus", help="from speeches and titles, each a CSV file or a JSON list")
    corpus.add_argument("speeches", type=Path)
    corpus.add_argument("titles", type=Path)
    for command in (ibm, corpus):
        command.add_argument("--sample", type=int, metavar="N",
                             help="keep N speeches drawn at random (default: every speech), in id order")
        command.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    machine = sub.add_parser("reference", help="the machine reference on the IBM questions' gold, as JSON")
    machine.add_argument("folder", type=Path)
    machine.add_argument("--dev-share", type=float, default=0.5)
    machine.add_argument("--split-seed", type=int, default=0)
    counts = sub.add_parser("titles", help="the IBM release's titles labelled positive, and ticked, at least once, "
                                           "as JSON")
    counts.add_argument("folder", type=Path)
    args = parser.parse_args(argv)
    if args.source == "titles":
        sys.stdout.write(json.dumps(ibm_title_counts(args.folder), indent=1) + "\n")
        return 0
    if args.source == "reference":
        result = ibm_reference(args.folder, dev_share=args.dev_share, split_seed=args.split_seed)
        sys.stdout.write(json.dumps(result, indent=1) + "\n")
        return 0
    if args.source == "ibm":
        records = ibm_questions(args.folder)
    else:
        records = questions_from_corpus(read_rows(args.speeches, SPEECH_COLUMNS), read_rows(args.titles, TITLE_COLUMNS))
    if args.sample is not None:
        try:
            records = sample_questions(records, n=args.sample, seed=args.seed)
        except ValueError as exc:
            raise SystemExit(f"--sample: {exc}") from None
    for record in records:
        sys.stdout.write(json.dumps(record, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
