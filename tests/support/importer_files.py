"""A valid file for each importer of the platform (each holds MARK once, in a text field of its
first row, where the hostile cases go)."""



from __future__ import annotations

import csv
import io
import json
from typing import Any

from annotation.task_types import get_task_type

MARK = "MARK"


# --- the importers' valid files ----------------------------------------------------------------


def _marked(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records with MARK put at the start of the first record's longest text."""
    first = json.loads(json.dumps(records[0]))
    best: tuple[int, Any, Any] = (-1, None, None)
    stack: list[Any] = [first]
    while stack:
        node = stack.pop()
        pairs = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
        for key, value in pairs:
            if isinstance(value, str) and " " in value and len(value) > best[0]:
                best = (len(value), node, key)
            elif isinstance(value, dict | list):
                stack.append(value)
    _, node, key = best
    node[key] = f"{MARK} {node[key]}"
    return [first, *records[1:]]


def _item_file(slug: str) -> tuple[str, str]:
    """A valid import file of a type's example records: CSV where the type reads flat rows,
    JSON lines where its records nest (a speech, a list of candidates)."""
    records = _marked(get_task_type(slug).example().records)
    if slug in ("comprehension", "counter_speech"):
        return "items.jsonl", "".join(json.dumps(r) + "\n" for r in records)
    columns = list(dict.fromkeys(k for r in records for k in r))
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    for r in records:
        writer.writerow({k: json.dumps(v) if isinstance(v, list | dict) else v for k, v in r.items()})
    return "items.csv", out.getvalue()


UKP_ARGUMENTS = ("arg_id\ttopic\tdebate_title\tstance\tauthor\ttext\n"
                 f"x1\tuni_good\tUniforms?\tGood\ta\t{MARK} Uniforms are cheap.\n"
                 "x2\tuni_good\tUniforms?\tGood\tb\tUniforms stop bullying.\n")
CROWD = ("topic\tpair_id\targ1\targ2\tworker\thit\tassignment\tlabel\treason\taccepted_at\tsubmitted_at\tworker_stance\n"
         f"uni_good\tx1_x2\tx1\tx2\tW1\tH1\tA1\ta1\t{MARK} A1 is short and clear\t2016-01-31 16:53:19.0 UTC\t"
         "2016-01-31 16:59:52.0 UTC\t\n")
T = "We should ban boxing"
KPA_ARGUMENTS = ("arg_id,argument,topic,stance\n"
                 f"p1,{MARK} boxing damages the brain,{T},1\np2,boxers get hurt,{T},1\n"
                 f"c1,adults may choose,{T},-1\nc2,it gives discipline,{T},-1\n")
KPA_KEY_POINTS = ("key_point_id,key_point,topic,stance\n"
                  f"kp0,Boxing harms health,{T},1\nkp1,Boxing is violent,{T},1\nkp2,A bad example,{T},1\n"
                  f"kc0,Freedom of choice,{T},-1\nkc1,Discipline,{T},-1\nkc2,Fitness,{T},-1\n")
KPA_LABELS = "arg_id,key_point_id,label\np1,kp0,1\np2,kp1,0\nc1,kc0,1\nc2,kc1,1\n"
PREDICTIONS = json.dumps({"p1": {"kp0": 0.9, "kp1": 0.2}, "p2": {"kp0": 0.8, "kp1": 0.1},
                          "c1": {"kc0": 0.4, "kc1": 0.3}, f"c2 {MARK}": {"kc1": 0.7}})
PROMPTS = "prompt_id,type,text\nq1,narration,Do you agree that school uniforms help?\n"
REFERENCES = "prompt_id,reference_id,text\nq1,r1,A model answer about uniforms.\n"
RESPONSES = ("response_id,prompt_id,speaker,audio,asr_transcript,transcript\n"
             f"s1,q1,sp1,,,{MARK} I think uniforms help because they are cheap.\n")
MANIFEST = f"key,file\nspeech_1.wav,a {MARK}.wav\n"
IBM_TRANSCRIPTS = ("speech-id,motion-id,speech-to-motion-polarity,speaker-name,responds-to-speaker-name,speech-text\n"
                   f"s1,m1,PRO,Ann,,{MARK} We should ban boxing. It harms the brain.\n"
                   "s2,m1,PRO,Bob,,Boxing is violent and children copy it.\n"
                   "s3,m1,CON,Cid,Ann,Adults may choose. Boxing teaches discipline.\n")
COMPREHENSION_SPEECHES = ("id,motion_id,motion,speaker,stance,transcript\n"
                          f"s1,m1,We should ban boxing,Ann,pro,{MARK} Boxing harms the brain. It is violent.\n")
COMPREHENSION_TITLES = "id,motion_id,stance,title,text\nt1,m1,pro,Boxing harms health,It damages the brain.\n"
IBM_MATCHING = ("motion-id,motion-text,speech-id,idebate-point-id,claim-text,sentence-index,sentence-text,"
                "positive-count,negative-count,is-claim-mentioned-in-sentence\n"
                "m1,We should ban boxing,s1,p1,Boxing harms health,0,x,1,0,true\n")
