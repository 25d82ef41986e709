"""A report that only waits, reporting progress as it goes: lets the tests kill or cancel a
job while it runs. Real workers load it with ``--include tests.support.slow_report``."""

import time

from analysis.reports import Param, Report, register

STEP = 0.1


class SlowReport(Report):
    kind = "test_wait"
    title = "Wait (tests only)"
    page = "analysis-dashboard"
    page_label = "Wait"
    params = (Param("seconds", float, 30.0, "how long to wait", minimum=0.0, label="Seconds", group="Waiting"),)

    def run(self, data, params, progress):
        steps = max(int(params["seconds"] / STEP), 1)
        for step in range(steps):
            time.sleep(STEP)
            progress((step + 1) / steps, f"waiting, step {step + 1} of {steps}")
        return {"waited": params["seconds"], "annotations": len(data.frame)}


register(SlowReport)
