from __future__ import annotations

import json

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404

from analysis.models import AnalysisRun
from annotation.views.permissions import permission_required
from task_types.response_scoring.report import ResponseScoringReport


@permission_required("annotation.export_annotations")
def scores_jsonl(request: HttpRequest, slug: str, run_id: int) -> HttpResponse:
    """Every score per response with its human scores, one JSON object a line."""
    run = get_object_or_404(AnalysisRun, pk=run_id, project__slug=slug, kind=ResponseScoringReport.kind,
                            status=AnalysisRun.Status.DONE)
    lines = (json.dumps(row, ensure_ascii=False) + "\n" for row in (run.result or {}).get("scores", []))
    response = HttpResponse("".join(lines), content_type="application/jsonl; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-run{run.pk}-scores.jsonl"'
    return response
