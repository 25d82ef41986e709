"""What a long command prints while it works: the stage, how far it got, how fast it goes.

Services report progress as ``progress(fraction, stage)`` (``annotation.importers.Progress``);
stages that count say so in their text (``writing annotations: 20,000 of 84,445``). A
``ProgressLog`` turns these reports into lines, one when a stage begins and then one every few
seconds, with the rows per second of the stage so far.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

_COUNT = re.compile(r"(\d[\d,]*) of (\d[\d,]*)")


class ProgressLog:
    def __init__(self, write: Callable[[str], None], *, every: float = 2.0,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.write, self.every, self.clock = write, every, clock
        self.started = self.last_report = self.last_line = self.stage_began = clock()
        self.stage: str | None = None

    def __call__(self, fraction: float, stage: str) -> None:
        now = self.clock()
        count = _COUNT.search(stage)
        name = stage[: count.start()].rstrip(" :") if count else stage
        done, total = (int(count.group(n).replace(",", "")) for n in (1, 2)) if count else (0, 0)
        if name != self.stage:
            # A stage began when the one before it last reported, with nothing done.
            self.stage, self.stage_began = name, self.last_report
        elif now - self.last_line < self.every and done != total:
            self.last_report = now
            return
        self.last_report = self.last_line = now
        rate = done / (now - self.stage_began) if count and now > self.stage_began else 0.0
        self.write(f"{now - self.started:7.1f} s  {stage}" + (f" ({rate:,.0f}/s)" if rate > 0 else ""))

    def note(self, text: str) -> None:
        """A line of the command's own, timed like the stages; the next stage begins after it."""
        self.last_report = self.clock()
        self.write(f"{self.last_report - self.started:7.1f} s  {text}")
