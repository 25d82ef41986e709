"""Paths that climb out of a project's media, or into another project's, reach no file: the
media URL answers 404 for every spelling of ``..``, an absolute path or an encoded separator,
and serves no byte of the settings, the system or another project's audio. (An assignment's
media is fetched by a reference the server made, never by a path:
tests/annotation/views/media/test_assignment_media.py. (Zip and folder imports refuse
such paths before storing anything: tests/annotation/services/media/test_files.py.)"""

from __future__ import annotations

import io

import pytest
from django.conf import settings

from annotation.services import media_import_file
from tests.factories import ProjectFactory, UserFactory
from tests.support import audio

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]
CLIP = audio.wav(frames=500)

CLIMBS = ["../../config/settings/base.py", "..%2F..%2Fconfig%2Fsettings%2Fbase.py", "%2e%2e/%2e%2e/config/settings/base.py",
          "..%252F..%252Fconfig%252Fsettings%252Fbase.py", "....//....//config/settings/base.py", "..\\..\\config\\settings\\base.py",
          "%2Fetc%2Fpasswd", "/etc/passwd", "//etc/passwd", "clips/../../../etc/passwd", "..%00.wav",
          "%c0%ae%c0%ae/%c0%ae%c0%ae/etc/passwd"]


@pytest.fixture
def projects():
    mine, theirs = ProjectFactory(open_to_all=False), ProjectFactory(open_to_all=False)
    media_import_file(project=mine, data=io.BytesIO(CLIP), name="mine.wav", size=len(CLIP))
    media_import_file(project=theirs, data=io.BytesIO(CLIP), name="theirs.wav", size=len(CLIP))
    return mine, theirs


def served(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def test_media_keys_that_climb_are_404(client, projects):
    mine, theirs = projects
    client.force_login(UserFactory(role="researcher"))
    for key in [*CLIMBS, f"../{theirs.slug}/theirs.wav", f"..%2F{theirs.slug}%2Ftheirs.wav"]:
        response = client.get(f"/projects/{mine.slug}/media/{key}")
        assert response.status_code in (400, 404), (key, response.status_code)
        body = served(response)
        # The clip's bytes, not the word RIFF: a page's random CSRF token may spell that.
        assert CLIP not in body and b"SECRET_KEY" not in body and b"root:x:" not in body
    # The file under its own key is served: the refusals were about the paths.
    assert client.get(f"/projects/{mine.slug}/media/mine.wav").status_code == 200


def test_stored_files_stay_under_media_root(projects):
    from pathlib import Path

    from annotation.models import MediaFile

    root = Path(settings.MEDIA_ROOT).resolve()
    assert MediaFile.objects.count() == 2
    for media in MediaFile.objects.all():
        assert root in Path(media.file.path).resolve().parents
