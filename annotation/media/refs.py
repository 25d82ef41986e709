"""The names under which an assignment's media files reach its worker.

A media file's key is the name an importer gave it, often the corpus's own file name, and that
may give the answer away: the IBM release names a counter speech's recording after the speech it
answers (``daniel_1661_school-uniforms_con_opening_mary.wav``). So no key reaches a worker: in
every page, API answer and address, each of the item's files goes under a *media reference*, a
keyed hash of the assignment and the key. It is the same on every load of the assignment (a
reload works), differs from one assignment to the next, and without the server's secret key
cannot be derived from a key or turned back into one; the server finds the file by computing the
references of the assignment's own files, so a reference never opens another item's or another
project's file. Staff pages and exports keep the keys.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.utils.crypto import salted_hmac

_SALT = "annotation.media_refs"
# 20 hex digits, 80 bits: beyond guessing, short enough for an address.
REF_LENGTH = 20


def media_ref(*, assignment_id: int, key: str) -> str:
    """The reference of the media file ``key`` for one assignment."""
    return salted_hmac(_SALT, f"{assignment_id}\x00{key}", algorithm="sha256").hexdigest()[:REF_LENGTH]


def media_refs(*, assignment_id: int, keys: Iterable[str]) -> dict[str, str]:
    """{key: reference} for the given keys of one assignment's item."""
    return {key: media_ref(assignment_id=assignment_id, key=key) for key in dict.fromkeys(keys)}


def key_of_ref(*, assignment_id: int, keys: Iterable[str], ref: str) -> str | None:
    """The key, among the item's ``keys``, whose reference for the assignment is ``ref``."""
    return next((key for key, shown in media_refs(assignment_id=assignment_id, keys=keys).items() if shown == ref), None)


def with_media_refs(value: Any, refs: Mapping[str, str]) -> Any:
    """``value`` (a worker's payload: dicts, lists, texts …) with every text that is a key of
    ``refs`` replaced by what it maps to: wherever a task type keeps its media keys, none
    reaches the worker."""
    if isinstance(value, str):
        return refs.get(value, value)
    if isinstance(value, Mapping):
        return {k: with_media_refs(v, refs) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [with_media_refs(v, refs) for v in value]
    return value
