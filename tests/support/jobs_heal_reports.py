"""A report whose work kills its own worker process, as a native crash or the kernel's
out-of-memory killer would: lets the tests prove the attempt cap with real workers, which load it
with ``--include tests.support.jobs_heal_reports``."""

import os

from analysis.reports import Report, register


class CrashReport(Report):
    kind = "test_crash"
    title = "Crash the worker (tests only)"
    page = "analysis-dashboard"
    page_label = "Crash"
    params = ()

    def run(self, data, params, progress):
        progress(0.5, "about to crash")
        # No exception, no clean-up: the process ends here, as with kill -9.
        os._exit(1)


register(CrashReport)
