"""Writes of what the server sees of an assignment's media: each request that fetched a file
for it, the bytes of it sent, and each start of playback its player reports. Claims a client makes about the media
(how long it listened, that it heard a clip at all) are checked against these records."""

from __future__ import annotations

from datetime import datetime

from django.db import IntegrityError, transaction
from django.db.models import F
from django.db.models.functions import Coalesce

from annotation.media.byte_ranges import ranges_union
from annotation.models import Assignment, MediaFile, MediaUse
from annotation.services.errors import WorkflowError

# A player numbers its starts of playback from 1; a number past this is no player's.
MAX_PLAYS = 1000


def _use(assignment: Assignment, media: MediaFile) -> MediaUse:
    """The assignment's record of the file, made on first use (two first requests at once both
    end up with the one row)."""
    try:
        with transaction.atomic():
            use, _ = MediaUse.objects.get_or_create(assignment=assignment, media=media)
    except IntegrityError:
        use = MediaUse.objects.get(assignment=assignment, media=media)
    return use


def media_use_fetched(*, assignment: Assignment, media: MediaFile, now: datetime) -> None:
    """Record that ``media`` was sent (whole, a range, or confirmed current) for the assignment."""
    use = _use(assignment, media)
    MediaUse.objects.filter(pk=use.pk).update(
        fetches=F("fetches") + 1, first_fetched_at=Coalesce(F("first_fetched_at"), now), last_fetched_at=now,
    )


def media_use_served(*, assignment: Assignment, media: MediaFile, start: int, end: int) -> None:
    """Record that bytes [start, end) of ``media`` went out for the assignment, added to those
    sent before (by any request, in any process): the record behind the check that a clip
    heard was also received."""
    use = _use(assignment, media)
    with transaction.atomic():
        served = MediaUse.objects.select_for_update().values_list("served", flat=True).get(pk=use.pk)
        if served is None:  # fetched before bytes were counted: a partial count would mislead
            return
        merged = ranges_union(served, start, end)
        if merged != served:
            MediaUse.objects.filter(pk=use.pk).update(served=merged)


def media_use_played(*, assignment: Assignment, media: MediaFile, play: int, now: datetime) -> MediaUse:
    """Record the start of the assignment's ``play``-th playback of ``media`` (1 for the first).
    Idempotent per number: a repeat, or a number already passed, changes nothing, so a player
    may send it again after a lost answer. Raises WorkflowError for a closed assignment or a
    number that is not a play's."""
    if not 1 <= play <= MAX_PLAYS:
        raise WorkflowError(f"play must be a whole number from 1 to {MAX_PLAYS}.")
    if assignment.status != Assignment.Status.ASSIGNED:
        raise WorkflowError(f"This assignment is {assignment.status}: its playback is no longer recorded.")
    use = _use(assignment, media)
    with transaction.atomic():
        use = MediaUse.objects.select_for_update().get(pk=use.pk)
        if play > use.plays:
            use.plays = play
            use.first_played_at = use.first_played_at or now
            use.last_played_at = now
            use.save(update_fields=["plays", "first_played_at", "last_played_at"])
    return use
