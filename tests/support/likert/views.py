from django.http import HttpRequest, JsonResponse

from annotation.models import Annotation


def counts(request: HttpRequest, slug: str) -> JsonResponse:
    """How often each rating was given in the project."""
    ratings = Annotation.objects.filter(assignment__project__slug=slug).values_list("answer__rating", flat=True)
    tally: dict[str, int] = {}
    for rating in ratings:
        tally[rating] = tally.get(rating, 0) + 1
    return JsonResponse(tally)
