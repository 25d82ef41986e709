"""A worker reports the item in front of them as broken (the "Report a problem" form of the
annotation page) and moves on to the next item."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from annotation.models import Assignment, Project
from annotation.services import WorkflowError
from annotation.services.errors import NotYours
from annotation.views.annotator import after_action
from annotation.views.request_types import AuthenticatedRequest
from quality.services.flags import FlagInvalid, item_flag


@never_cache
@login_required
@require_POST
def flag(request: AuthenticatedRequest, slug: str, assignment_id: int) -> HttpResponse:
    project = get_object_or_404(Project, slug=slug)
    # Another project's assignment, or another worker's, is one that does not exist.
    if not Assignment.objects.filter(pk=assignment_id, project=project).exists():
        raise Http404
    try:
        item_flag(assignment=Assignment(pk=assignment_id), worker=request.user,
                  problem=request.POST.get("problem", ""), reason=request.POST.get("reason", ""))
    except (Assignment.DoesNotExist, NotYours):
        raise Http404 from None
    except FlagInvalid as exc:
        return after_action(request, project, "Your report was not sent: " + " ".join(exc.errors.values()), "error")
    except WorkflowError as exc:
        return after_action(request, project, str(exc), "error")
    return after_action(request, project, "Thank you for the report. The item was set aside for the project's staff; "
                                          "here is your next one.", "success")
