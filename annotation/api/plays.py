"""REST API: an assignment's media as the server saw it, the start of each playback, and the
files themselves for clients that log in with a token."""

from __future__ import annotations

from django.http import Http404
from django.http.response import HttpResponseBase
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.exceptions import ValidationError
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import IsAuthenticated
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.parsers import body_fields
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.schema.errors import conflict, field_errors
from annotation.api.schema.loop import PlayIn, PlaysOut
from annotation.api.unseen import unseen
from annotation.media.refs import media_refs
from annotation.models import Assignment, MediaFile
from annotation.selectors.media import (
    media_facts,
    media_fetch_refused,
    media_for_ref,
    media_refs_ended,
)
from annotation.services import WorkflowError
from annotation.services.media.uses import media_use_played
from annotation.task_types import get_task_type
from annotation.views.media.serving import assignment_media_response


def _own(request: AuthenticatedApiRequest, pk: int) -> Assignment:
    """The caller's own assignment; a missing one and another worker's are the same 404."""
    assignment = Assignment.objects.select_related("item", "project").filter(pk=pk, worker_id=request.user.pk).first()
    if assignment is None:
        raise unseen()
    return assignment


def _item_media(assignment: Assignment, ref: str) -> MediaFile:
    """The file of the assignment's item that goes to its worker as ``ref``; 404 otherwise (the
    same answer for any reference, so that none tells what the item's files are)."""
    media = media_for_ref(assignment=assignment, ref=ref)
    if media is None:
        raise Http404("The item has no media file of that reference.")
    return media


def plays_body(assignment: Assignment) -> dict:
    """The item's media files as its worker knows them: each under its reference (``key``), never
    its stored key, which may give the answer away (``annotation.media.refs``)."""
    task = get_task_type(assignment.project.task_type)
    facts = media_facts(assignment=assignment, keys=task.media_keys(assignment.item.payload))
    refs = media_refs(assignment_id=assignment.pk, keys=facts)
    return {"assignment": assignment.pk, "media": [
        {"key": refs[f.key], "duration": f.duration, "fetched": f.fetches > 0,
         "served": round(f.served / f.size, 4) if f.size and f.served is not None else None, "plays": f.plays,
         "first_played_at": f.first_played_at.isoformat() if f.first_played_at else None}
        for f in facts.values()]}


class AssignmentPlays(APIView):
    """``GET``: the item's media files (``key``: each one's reference) with their length, whether
    they were fetched for this assignment, the share of their bytes sent for it and how many
    times playback started. ``POST`` ``{"key": reference, "play": n}``: playback of that file
    started for the n-th time (1 the first); idempotent per n, so a player sends it
    again after a reload or a lost answer. 409 once the assignment is closed."""

    permission_classes = [IsAuthenticated]

    @extend_schema(tags=["annotating"], operation_id="assignment_plays", summary="The item's media as the server saw it",
                   responses={200: PlaysOut})
    def get(self, request: AuthenticatedApiRequest, pk: int) -> Response:
        return Response(plays_body(_own(request, pk)))

    @extend_schema(tags=["annotating"], operation_id="assignment_play", summary="Record a start of playback",
                   request=PlayIn, responses={200: PlaysOut, 400: field_errors("`play` is not a whole number."),
                                              409: conflict("the assignment is closed.")})
    def post(self, request: AuthenticatedApiRequest, pk: int) -> Response:
        assignment = _own(request, pk)
        data = body_fields(request, "the play")
        media = _item_media(assignment, str(data.get("key", "")))
        play = data.get("play", 1)
        try:
            play = int(play)
        except (TypeError, ValueError):
            raise ValidationError({"play": "must be a whole number (1 for the first play)"}) from None
        try:
            media_use_played(assignment=assignment, media=media, play=play, now=timezone.now())
        except WorkflowError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        return Response(plays_body(assignment))


class _AnyAccept(BaseContentNegotiation):
    """A file goes out as what it is, whatever the client accepts (an audio player's Accept
    header names no renderer of the API's)."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class AssignmentMedia(APIView):
    """``GET``: a media file of the assignment's item under its reference (as the item's payload
    names it; byte ranges as on the page), recorded as fetched, with the bytes sent, for the
    assignment while it is open. A worker blocked in the project, or altogether, gets none, nor
    does anyone once the assignment ended (skipped, reviewed, or submitted past changing)."""

    permission_classes = [IsAuthenticated]
    content_negotiation_class = _AnyAccept

    @extend_schema(
        tags=["annotating"], operation_id="assignment_media", summary="A media file of the item, by its reference",
        responses={
            (200, "audio/*"): OpenApiResponse(OpenApiTypes.BINARY, "The whole file."),
            (206, "audio/*"): OpenApiResponse(OpenApiTypes.BINARY, "The byte range asked for (`Range`)."),
            304: OpenApiResponse(description="Not modified (`If-None-Match`, `If-Modified-Since`)."),
            307: OpenApiResponse(description="With S3 storage, a byte range is a redirect to the stored object."),
            416: OpenApiResponse(description="The range asked for lies outside the file (`Content-Range`)."),
        })
    def get(self, request: Request, pk: int, ref: str) -> HttpResponseBase:
        assignment = _own(request, pk)  # type: ignore[arg-type]
        if media_refs_ended(assignment=assignment, now=timezone.now()):
            # The answer of a reference the item lacks, as for a blocked worker.
            raise Http404("The item has no media file of that reference.")
        media = _item_media(assignment, ref)
        if media_fetch_refused(project=assignment.project, worker=request.user):  # type: ignore[arg-type]
            # The answer of a reference the item lacks: nothing tells the worker why.
            raise Http404("The item has no media file of that reference.")
        try:
            return assignment_media_response(request, assignment, media, ref)
        except FileNotFoundError:
            raise Http404("The file is recorded but not stored.") from None
