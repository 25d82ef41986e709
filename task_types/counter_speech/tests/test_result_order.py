"""Stored report results come back from PostgreSQL's jsonb with their keys sorted by length, not
in the order they were written: the page must lay them out in its own order either way."""

from task_types.counter_speech.report import METHOD_TEXTS, CounterSpeechReport


def _jsonb_order(mapping: dict) -> dict:
    return {k: mapping[k] for k in sorted(mapping, key=lambda k: (len(k), k))}


def test_the_counter_speech_page_orders_methods_whatever_the_stored_order():
    methods = _jsonb_order({name: {"settings": {}} for name in METHOD_TEXTS})
    assert list(methods) != list(METHOD_TEXTS)
    page = CounterSpeechReport().page_context({"machine": {"methods": methods}})
    assert [r["method"] for r in page["method_rows"]] == list(METHOD_TEXTS.values())
