"""API of the project admin's *Create annotators* page: accounts from a list of names, made
members of the project, each with a one-time invite link or a one-time password to hand out
(``annotation.services.accounts``); a name that has an account is made a member as it is."""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.api.lookups import project_or_404
from annotation.api.parsers import SafeJSONParser
from annotation.api.refusals import refusals
from annotation.api.request_types import AuthenticatedApiRequest
from annotation.api.views import has_perm
from annotation.importers import ImportFailed
from annotation.services.accounts import AccountError, annotators_create

MAX_NAMES = 1000


class AnnotatorsCreateRequestSerializer(serializers.Serializer):
    names = serializers.ListField(child=serializers.CharField(max_length=150), min_length=1, max_length=MAX_NAMES)
    mode = serializers.ChoiceField(choices=["invite", "password"], default="invite")


class NewAnnotatorSerializer(serializers.Serializer):
    username = serializers.CharField()
    existing = serializers.BooleanField(help_text="Had an account: made a member, nothing to hand out.")
    password = serializers.CharField(allow_null=True, help_text="One-time password (mode password), shown once.")
    invite_url = serializers.CharField(allow_null=True, help_text="One-time link to set a password (mode invite).")


class AnnotatorsCreatedSerializer(serializers.Serializer):
    accounts = NewAnnotatorSerializer(many=True)


class AnnotatorsCreate(APIView):
    """POST ``{"names": [...], "mode": "invite"|"password"}``: all or nothing; 201 with what to
    hand out (shown once: only hashes are stored), 400 naming each bad name with its line."""

    permission_classes = [has_perm("annotation.view_project"), has_perm("auth.add_user")]
    parser_classes = [SafeJSONParser]

    @extend_schema(operation_id="annotators_create", request=AnnotatorsCreateRequestSerializer,
                   responses={201: AnnotatorsCreatedSerializer, **refusals(400, 404)})
    def post(self, request: AuthenticatedApiRequest, slug: str) -> Response:
        project = project_or_404(slug)
        form = AnnotatorsCreateRequestSerializer(data=request.data)
        form.is_valid(raise_exception=True)
        data = form.validated_data
        if any("\n" in name or "\r" in name for name in data["names"]):
            return Response({"names": ["one name per entry, without line breaks"]}, status=status.HTTP_400_BAD_REQUEST)
        try:
            accounts = annotators_create(names_text="\n".join(data["names"]), mode=data["mode"], project=project,
                                         actor=request.user)
        except ImportFailed as exc:
            return Response({"names": [f"entry {e.line}: {e.message}" if e.line else e.message for e in exc.errors]},
                            status=status.HTTP_400_BAD_REQUEST)
        except AccountError as exc:
            return Response({"mode": [str(exc)]}, status=status.HTTP_400_BAD_REQUEST)
        return Response({"accounts": [
            {"username": a.username, "existing": a.existing, "password": a.password,
             "invite_url": request.build_absolute_uri(reverse("invite", args=[a.invite_token])) if a.invite_token else None} for a in accounts]},
            status=status.HTTP_201_CREATED)
