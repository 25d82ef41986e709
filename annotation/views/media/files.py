"""A project's audio files, for staff by key and for a worker through an assignment."""

from __future__ import annotations

import logging

from django.http.response import HttpResponseBase
from django.utils import timezone
from django.views.decorators.http import require_safe

from annotation.selectors.annotator import worker_assignment
from annotation.selectors.media import (
    media_fetch_refused,
    media_file_for,
    media_for_ref,
    media_refs_ended,
)
from annotation.views.annotator import not_found, visible_project
from annotation.views.media.serving import assignment_media_response, media_response
from annotation.views.request_types import HtmxRequest

logger = logging.getLogger(__name__)


@require_safe
def media(request: HtmxRequest, slug: str, key: str) -> HttpResponseBase:
    """An audio file of a project under its key, for staff. Anyone else gets the page of a
    project that does not exist, anonymous visitors too: a login form would tell them that the
    project, and the file, are there. A project's annotators too: a key may give an answer away
    (``annotation.media.refs``), so they fetch files by reference, through their assignment, and
    the answer here must not tell them which keys exist."""
    if not request.user.is_authenticated:
        return not_found(request)
    visible = visible_project(request.user, slug)
    if visible is None or not (visible[1] == "staff" or request.user.has_perm("annotation.view_project")):
        return not_found(request)
    project = visible[0]
    media_file = media_file_for(project=project, key=key)
    if media_file is None:
        return not_found(request)
    try:
        return media_response(request, media_file)
    except FileNotFoundError:
        logger.error("media file %s of project %s is recorded but not stored", key, project.slug)
        return not_found(request)


@require_safe
def assignment_media(request: HtmxRequest, slug: str, assignment_id: int, ref: str) -> HttpResponseBase:
    """A media file of the item of one of the worker's assignments, under its reference: the
    address the item's page plays. While the assignment is open, each request and the bytes it
    sends are recorded for it. Anything else (another's assignment, another project's, a
    reference of another item, a worker blocked in the project or altogether, an assignment that
    ended: skipped, reviewed, or submitted past changing) is the page of a project that does not
    exist."""
    if not request.user.is_authenticated or visible_project(request.user, slug) is None:
        return not_found(request)
    assignment = worker_assignment(worker=request.user, slug=slug, pk=assignment_id)
    if assignment is not None and media_refs_ended(assignment=assignment, now=timezone.now()):
        return not_found(request)
    media_file = media_for_ref(assignment=assignment, ref=ref) if assignment is not None else None
    if assignment is None or media_file is None:
        return not_found(request)
    if media_fetch_refused(project=assignment.project, worker=request.user):
        return not_found(request)
    try:
        return assignment_media_response(request, assignment, media_file, ref)
    except FileNotFoundError:
        logger.error("media file %s of project %s is recorded but not stored", media_file.key, slug)
        return not_found(request)
