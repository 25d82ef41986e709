"""REST API of the pairwise type's staff tools: the admin's *Generate argument pairs* page
(``task_types.pairwise.corpus``) and the gold page's reason-review verdict on a worker
(``task_types.pairwise.gold_review``). Mounted by the task-type registry with the type's pages."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from analysis.api import AnalysisRunSerializer
from analysis.reports import get_report
from annotation.api.lookups import project_or_404
from annotation.api.parsers import SafeJSONParser
from annotation.api.refusals import refusals
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.views import has_perm
from annotation.importers import ImportFailed
from annotation.models import Project
from quality.selectors.worker_page import project_worker
from task_types.pairwise.corpus import pairs_generate
from task_types.pairwise.gold_review import KIND, gold_worker_reject
from task_types.pairwise.models import Topic


class PairsGenerateRequestSerializer(serializers.Serializer):
    topic = serializers.CharField(max_length=200, help_text="The topic's external id in the argument corpus.")
    seed = serializers.IntegerField(default=2016, help_text="Decides which argument is shown as A1, per pair.")
    min_words = serializers.IntegerField(required=False, allow_null=True, min_value=0, default=10)
    max_words = serializers.IntegerField(required=False, allow_null=True, min_value=1, default=110)
    sample = serializers.IntegerField(required=False, allow_null=True, min_value=2,
                                      help_text="Keep only this many arguments, drawn at random.")


class PairsGeneratedSerializer(serializers.Serializer):
    arguments = serializers.IntegerField()
    pairs = serializers.IntegerField()
    created = serializers.IntegerField(help_text="New items.")
    skipped_existing = serializers.IntegerField(help_text="Pairs the project already held (in either order).")


class GoldRejectionSerializer(serializers.Serializer):
    rejected = serializers.IntegerField(help_text="Assignments rejected (0: no counted work, nothing done).")
    queued = serializers.BooleanField(help_text="False when the recompute could not be queued: restart `run`.")
    run = AnalysisRunSerializer(allow_null=True)


def _pairwise_project(slug: str) -> Project:
    project = project_or_404(slug)
    if not get_report(KIND).applies_to(project.task_type):
        raise NotFound(f"The gold pipeline does not apply to {project.task_type} projects.")
    return project


class PairsGenerate(APIView):
    """POST: add all pairs of a corpus topic's arguments to the project as items (pairs it holds
    are skipped); 201 with the counts, 400 naming the field at fault."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("annotation.add_item")]
    parser_classes = [SafeJSONParser]

    @extend_schema(operation_id="pairwise_pairs_generate", request=PairsGenerateRequestSerializer,
                   responses={201: PairsGeneratedSerializer, **refusals(400, 404)})
    def post(self, request: Request, slug: str) -> Response:
        project = project_or_404(slug)
        form = PairsGenerateRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        topic = Topic.objects.filter(external_id=data["topic"]).first()
        if topic is None:
            return Response({"topic": ["no topic in the argument corpus has this id"]},
                            status=status.HTTP_400_BAD_REQUEST)
        try:
            result = pairs_generate(project=project, topic=topic, seed=data["seed"], min_words=data.get("min_words"),
                                    max_words=data.get("max_words"), sample=data.get("sample"), actor=request.user)
        except ImportFailed as exc:
            body: dict[str, list[str]] = {}
            for e in exc.errors:
                body.setdefault(e.field or "detail", []).append(e.message)
            return Response(body, status=status.HTTP_400_BAD_REQUEST)
        return Response({"arguments": result.arguments, "pairs": result.pairs, "created": result.imported.created,
                         "skipped_existing": result.skipped_existing}, status=status.HTTP_201_CREATED)


class GoldRejectWorker(APIView):
    """POST: reject all of the worker's counted work in the project and recompute the gold data
    without it (the gold page's reason review); 200 with the count and the queued run. A worker
    with no work in the project is a 404."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("annotation.change_assignment")]

    @extend_schema(operation_id="pairwise_gold_reject_worker", request=None,
                   responses={200: GoldRejectionSerializer, **refusals(404)})
    def post(self, request: AuthenticatedApiRequest, slug: str, worker_id: int) -> Response:
        project = _pairwise_project(slug)
        worker = project_worker(project=project, worker_id=worker_id)
        if worker is None:
            raise NotFound("No such worker in this project.")
        rejection = gold_worker_reject(project=project, worker=worker, reviewer=request.user)
        run = rejection.run
        if run is not None:
            run.refresh_from_db()
        return Response({"rejected": rejection.rejected, "queued": rejection.queued,
                         "run": AnalysisRunSerializer(run).data if run is not None else None})
