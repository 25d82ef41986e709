"""The response-scoring report's job on a large project, stage by stage (no database: the run's
input frames are built in memory, as the job gets them).

    DJANGO_DEBUG=1 .venv/bin/python bench/response_scoring_report.py [--responses 100000]

Synthetic data: 24 prompts with 4 references of 40 words each; responses with a 60-word ASR and
a 72-word manual transcript drawn from an 18-word vocabulary; two of 50 raters per response.
Prints the seconds of rater agreement, the content scores on both transcripts, their relation
to the human scores, the word error rate, and the whole run.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

import pandas as pd  # noqa: E402

import task_types.response_scoring.report as report_module  # noqa: E402
from analysis.reports import ReportInput  # noqa: E402

WORDS = ("bees pollen flower plant seed storm girl grandfather stick library hours morning evening students "
         "farmers crops fruit").split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--responses", type=int, default=100_000)
    n = parser.parse_args().responses
    rng = random.Random(0)

    def text(k: int) -> str:
        return " ".join(rng.choice(WORDS) for _ in range(k))

    refs = {p: [{"id": f"R{i}", "text": text(40)} for i in range(4)] for p in range(24)}
    items = pd.DataFrame({"item": range(n), "response": [f"r{i}" for i in range(n)],
                          "prompt_id": [str(i % 24) for i in range(n)],
                          "prompt_type": ["narration" if i % 4 == 0 else "summary" for i in range(n)], "speaker": "",
                          "asr_transcript": [text(60) for _ in range(n)], "transcript": [text(72) for _ in range(n)],
                          "references": [refs[i % 24] for i in range(n)]})
    frame = pd.DataFrame({"item": [i for i in range(n) for _ in range(2)],
                          "worker": [w for i in range(n) for w in (f"w{i % 50}", f"w{(i + 7) % 50}")],
                          "label": [str(rng.randint(1, 4)) for _ in range(2 * n)]})
    for name in ("rater_agreement", "response_table", "relations", "word_error_rates"):
        stage = getattr(report_module, name)

        def timed(*args, _stage=stage, _name=name, **kwargs):
            start = time.perf_counter()
            out = _stage(*args, **kwargs)
            print(f"{_name:18} {time.perf_counter() - start:6.1f} s")
            return out

        setattr(report_module, name, timed)
    report = report_module.ResponseScoringReport()
    start = time.perf_counter()
    report.run(ReportInput(frame=frame, items=items, task_type="response_scoring", redundancy=2, level="ordinal"),
               report.clean_params({}), lambda fraction, stage: None)
    print(f"{'whole run':18} {time.perf_counter() - start:6.1f} s for {n:,} responses")


if __name__ == "__main__":
    main()
