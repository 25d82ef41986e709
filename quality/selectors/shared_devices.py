"""Accounts that answer from one browser: the device ids a worker's answers in a project carried
(``annotation.authenticity``, kept in ``Annotation.client["signals"]["device"]``) and the other
accounts of the project whose answers carried one of them.

A signal for staff, never a decision: a shared id says that two accounts used one browser
profile (a second account of one person, or a lab computer several people share); accounts in
different browsers, private windows or with storage cleared do not share one."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Count, F
from django.db.models.fields.json import KeyTextTransform, KeyTransform

from annotation.models import Annotation, Project

# Accounts listed at most: beyond that a device is a shared computer, and the count says so.
SHOWN = 20


@dataclass(frozen=True)
class SharedBrowser:
    worker_id: int
    username: str
    answers: int  # their answers in the project from a browser the worker also used
    devices: int  # how many of the worker's device ids they share


def accounts_sharing_device(*, project: Project, worker: User) -> list[SharedBrowser]:
    """The other accounts of ``project`` whose answers came from a browser (device id) that
    ``worker``'s answers in it came from too, most shared answers first."""
    device = KeyTextTransform("device", KeyTransform("signals", "client"))
    mine = {d for d in Annotation.objects.filter(assignment__project=project, assignment__worker=worker)
            .annotate(device=device).order_by().values_list("device", flat=True).distinct() if d}
    if not mine:
        return []
    rows = (Annotation.objects.filter(assignment__project=project, client__signals__device__in=sorted(mine))
            .exclude(assignment__worker=worker).annotate(device=device).order_by()
            .values("device", worker_id=F("assignment__worker_id"), username=F("assignment__worker__username"))
            .annotate(n=Count("pk")))
    answers: dict[tuple[int, str], int] = defaultdict(int)
    devices: dict[tuple[int, str], int] = defaultdict(int)
    for row in rows:
        key = (row["worker_id"], row["username"])
        answers[key] += row["n"]
        devices[key] += 1
    ranked = sorted(answers, key=lambda k: (-answers[k], k[1]))
    return [SharedBrowser(worker_id=w, username=name, answers=answers[(w, name)], devices=devices[(w, name)])
            for w, name in ranked[:SHOWN]]
