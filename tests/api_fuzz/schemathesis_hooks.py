"""Loaded by the schemathesis runs of test_schemathesis.py (``SCHEMATHESIS_HOOKS``).

Its two worker threads both ask Hypothesis to describe filter lambdas, which parses source with
``ast``; on CPython 3.11 the AST converter's recursion counter is shared between threads, and two
parses at once can fail with "AST constructor recursion depth mismatch" (CPython gh-106905, fixed
in later releases). The descriptions are only names for reports: one lock serialises them, and
the runs test the API, not that race."""

from __future__ import annotations

import threading

from hypothesis.internal import lambda_sources

_lock = threading.Lock()
_describe = lambda_sources.lambda_description


def _serialised_description(f):
    with _lock:
        return _describe(f)


lambda_sources.lambda_description = _serialised_description
