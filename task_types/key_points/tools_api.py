"""REST API of the key-point type's project tools, as the admin's pages: import the shared
task's corpus (``corpus_tool``), and build track 2 items from a system's output or score the
system on the labels collected (``track2_tool``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse
from rest_framework.request import Request
from rest_framework.response import Response

from analysis.methods.keypoint_track2 import Track2Error
from annotation.api.project_tools import ProjectTool, job_accepted, tool_schema
from annotation.importers import ImportFailed, RowError
from task_types.key_points.corpus_tool import ImportForm, corpus_import
from task_types.key_points.track2_tool import Track2Form, Track2Outcome, track2_run


@tool_schema("key_points_import", ImportForm)
class CorpusImport(ProjectTool):
    form_class = ImportForm

    def run(self, **kwargs):
        return corpus_import(**kwargs)


@tool_schema("key_points_track2", Track2Form,
             **{"200": OpenApiResponse(OpenApiTypes.OBJECT, description="action score: the system and its score.")})
class Track2(ProjectTool):
    """``action`` build: 202 with the import job; ``action`` score: 200 with the score at once."""

    form_class = Track2Form

    def run(self, **kwargs) -> Any:
        try:
            return track2_run(**kwargs)
        except Track2Error as exc:
            raise ImportFailed([RowError(None, None, str(exc))]) from None

    def answer(self, request: Request, outcome: Track2Outcome) -> Response:
        if outcome.job is not None:
            return job_accepted(request, outcome.job)
        return Response({"system": outcome.system, "score": outcome.score})


