"""Gzip bombs as item imports: 256 MB of zeros in under 300 KB is refused at the decompression
limit with a message naming it, within bounded memory, both when read directly and when uploaded
through the API (the job fails with that message and imports nothing)."""

import gzip
import io
import tracemalloc

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from annotation.importers import ImportFailed, decode
from annotation.uploads import MIB
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db


def gzip_bomb(unpacked: int) -> bytes:
    """One gzip member of ``unpacked`` zero bytes (about a thousandth of that on the wire)."""
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=9) as packed:
        zeros = bytes(MIB)
        for _ in range(unpacked // MIB):
            packed.write(zeros)
    return out.getvalue()


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return gzip_bomb(256 * MIB)


def test_a_gzip_bomb_is_refused_within_bounded_memory(bomb, settings):
    settings.IMPORT_MAX_DECOMPRESSED_BYTES = 16 * MIB
    assert len(bomb) < 300_000
    for source in (bomb, io.BytesIO(bomb)):
        tracemalloc.start()
        try:
            with pytest.raises(ImportFailed) as exc:
                decode(source)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert str(exc.value) == ("file: the gzip file unpacks to more than 16 MB, the limit for decompressed "
                                  "imports (IMPORT_MAX_DECOMPRESSED_MB)")
        assert peak < 40 * MIB


def test_a_gzip_bomb_upload_is_refused(bomb, settings, django_capture_on_commit_callbacks):
    settings.IMPORT_MAX_DECOMPRESSED_BYTES = 16 * MIB
    assert settings.UPLOAD_MAX_BYTES == 200 * MIB
    project = ProjectFactory()
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/projects/{project.slug}/items/import/",
                            {"file": SimpleUploadedFile("items.csv.gz", bomb)}, format="multipart")
    # The bomb is small enough to be accepted for a job; the job refuses it, unpacking no further.
    assert response.status_code == 202
    job = api.get(response["Location"]).json()
    assert job["status"] == "failed" and "unpacks to more than 16 MB" in job["errors"][0]["message"]
