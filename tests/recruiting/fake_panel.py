"""A recruiting provider that exists only in the tests: a panel with its own worker-id parameter
(``fake_uid``) and its own return address, registered by the ``fake_panel`` fixture the way a
marketplace's app registers its provider (``annotation.providers``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote

import pytest

from annotation.providers import Exit, Provider, provider_register, provider_unregister

RETURN = "https://fake-panel.example.org/return"


class FakePanel(Provider):
    key, name = "fakepanel", "Fake panel"
    worker_param = "fake_uid"

    def __init__(self) -> None:
        self.left: set[int] = set()  # workers who left the study on the panel
        self.screened_out: list[tuple[int, int]] = []

    def may_take_items(self, *, project: Any, worker: Any) -> bool:
        return worker.pk not in self.left

    def worker_screened_out(self, *, project: Any, worker: Any) -> None:
        self.screened_out.append((project.pk, worker.pk))

    def _exit(self, *, code: str, params: Mapping[str, str]) -> Exit | None:
        uid = params.get(self.worker_param)
        return Exit(url=f"{RETURN}?uid={quote(uid, safe='')}&code={quote(code, safe='')}") if uid else None

    def completion_exit(self, *, project: Any, params: Mapping[str, str]) -> Exit | None:
        return self._exit(code=project.completion_code, params=params)

    def screened_out_exit(self, *, project: Any, url: str, code: str, params: Mapping[str, str]) -> Exit | None:
        return self._exit(code=code, params=params)


@pytest.fixture
def fake_panel() -> Iterator[FakePanel]:
    panel = FakePanel()
    provider_register(panel)
    try:
        yield panel
    finally:
        provider_unregister(panel.key)
