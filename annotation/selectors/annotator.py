"""What an annotator may open and is shown: access to a project, the preview, the welcome and
consent step of a marketplace arrival, and how the task is presented to them."""

from __future__ import annotations

from django.contrib.auth.models import User

from annotation.media.refs import media_refs, with_media_refs
from annotation.models import Assignment, Consent, Item, Project
from annotation.selectors.media import media_facts
from annotation.task_types import project_task_type

Status = Assignment.Status


def project_access(*, project: Project, user: User) -> str:
    """``"worker"`` when the user may annotate the project, ``"staff"`` when they may only look
    at it (researchers and admins), ``""`` when it is none of their business."""
    if project.open_to_all or project.members.filter(pk=user.pk).exists():
        return "worker"
    if user.has_perm("annotation.view_project"):
        return "staff"
    return ""


def preview_item(*, project: Project) -> Item | None:
    """The item a preview shows: the first one the project hands out in sequential order."""
    return Item.objects.filter(project=project).order_by("position", "pk").first()


def worker_assignment(*, worker: User, slug: str, pk: int) -> Assignment | None:
    """The worker's own assignment ``pk`` in the project ``slug``, with its item and project;
    None for anyone else's, or another project's."""
    return (Assignment.objects.select_related("item", "project")
            .filter(pk=pk, project__slug=slug, worker=worker).first())


def holds_open_assignment(*, project: Project, worker: User) -> bool:
    return Assignment.objects.filter(project=project, worker=worker, status=Status.ASSIGNED).exists()


def consent_needed(*, project: Project, worker: User) -> bool:
    return not Consent.objects.filter(project=project, worker=worker).exists()


# The session key that marks a marketplace arrival, and for which project.
MARKETPLACE_PROJECT = "marketplace_project"


def consent_pending(*, project: Project, worker: User, session) -> bool:
    """A worker who arrived from this project's marketplace link has not yet accepted its
    welcome and consent text: no item for them, on the page or through the API."""
    return session.get(MARKETPLACE_PROJECT) == project.slug and consent_needed(project=project, worker=worker)


def presentation(*, project: Project, worker: User | None, item: Item | None = None,
                 assignment: Assignment | None = None, media: bool = False, staff: bool = False) -> dict:
    """The project's options and the worker's variant, for the task type's template, with the
    keyboard shortcuts of that variant; with an ``item``, the part of its payload the worker
    may receive (``payload``), its options in the order the ``assignment`` drew (import order
    without one: a preview); with ``media`` (and an assignment of that item), what the server saw
    of the item's media for it (``media``: MediaFacts in the order the type names the files).

    No media key reaches a worker (``annotation.media.refs``): in the payload of an assignment
    each key is replaced by its reference; without an assignment (a marketplace's preview, which
    plays nothing) by "", unless ``staff`` look at the item (the staff preview plays the files
    by key)."""
    task = project_task_type(project)
    options = task.clean_options(project.options)
    # A preview (no worker) shows what the first worker would get.
    variant = task.variant(options=options, project_id=project.pk, worker_id=worker.pk if worker else 0)
    # Only the options of the type's form: other records in the options stay with the staff.
    shown = {"options": {k: options[k] for k in task.option_defaults()}, "variant": variant,
             "shortcuts": [s for s in task.shortcuts if s.applies_to(variant)]}
    if item is not None:
        payload = task.worker_payload(item.payload, options=options, variant=variant)
        if task.shown_order_parts:
            drawn = assignment.shown_order if assignment is not None else None
            payload = task.apply_order(payload, drawn or task.order_parts(payload))
        keys = task.media_keys(item.payload)
        if assignment is not None:
            if media:
                shown["media"] = list(media_facts(assignment=assignment, keys=keys).values())
            if keys:  # an item without media is sent as it is
                payload = with_media_refs(payload, media_refs(assignment_id=assignment.pk, keys=keys))
        elif not staff and keys:
            payload = with_media_refs(payload, dict.fromkeys(keys, ""))
        shown["payload"] = payload
    return shown
