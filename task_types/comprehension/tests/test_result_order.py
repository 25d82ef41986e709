"""Stored report results come back from PostgreSQL's jsonb with their keys sorted by length, not
in the order they were written: the page must lay them out in its own order either way."""

from task_types.comprehension.report import CONFIGURATIONS, ComprehensionReport


def _jsonb_order(mapping: dict) -> dict:
    return {k: mapping[k] for k in sorted(mapping, key=lambda k: (len(k), k))}


def test_the_comprehension_page_orders_modes_and_configurations_whatever_the_stored_order():
    figures = {"n_speeches": 1, "n_questions": 1, "n_workers": 1}
    result = {"modes": _jsonb_order({"listening": dict(figures), "reading": dict(figures)}),
              "reading_subset": dict(figures),
              "machine": {"configurations": _jsonb_order({name: {"accuracy": 0.5} for name in CONFIGURATIONS})}}
    page = ComprehensionReport().page_context(result)
    assert [c["key"] for c in page["columns"]] == ["listening", "reading_subset", "reading"]
    assert list(page["modes"]) == ["listening", "reading"]
    assert [r["name"] for r in page["machine_rows"]] == list(CONFIGURATIONS)
