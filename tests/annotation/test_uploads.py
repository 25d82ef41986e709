"""Upload size limits, enforced while the upload streams in, and the limit on unpacking gzip
(gzip bombs: tests/security/test_import_gzip_bombs.py)."""

import gzip
import io
import json
import tracemalloc

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.handlers.wsgi import WSGIRequest
from django.urls import reverse
from rest_framework.test import APIClient, APIRequestFactory, force_authenticate

from annotation.api.views import ItemImport
from annotation.importers import ImportFailed, decode
from annotation.models import Annotation, Item
from annotation.uploads import MIB, too_large_message
from tests.factories import ProjectFactory, UserFactory

pytestmark = pytest.mark.django_db
RECORD = {"topic": "t", "prompt": "P", "stance": "s", "arg1_text": "x", "arg2_text": "y"}


def items_json(n: int) -> bytes:
    return json.dumps([{**RECORD, "id": f"p{i}", "arg1_id": f"a{i}", "arg2_id": f"b{i}"} for i in range(n)]).encode()


def big_items(size: int) -> bytes:
    """A valid item file of at least ``size`` bytes."""
    data, n = items_json(1), 1
    while len(data) < size:
        n *= 2
        data = items_json(n)
    return data


@pytest.fixture
def small_limit(settings):
    settings.UPLOAD_MAX_BYTES = 1 * MIB
    return settings.UPLOAD_MAX_BYTES


def test_the_default_limit_is_200_mb_and_the_message_names_it(settings):
    assert settings.UPLOAD_MAX_BYTES == 200 * MIB
    assert too_large_message("items.csv", 200 * MIB) == "The file 'items.csv' is larger than the 200 MB limit for uploads."


@pytest.mark.parametrize("url", ["/api/projects/{}/items/import/", "/api/projects/{}/crowd-results/import/"])
def test_api_refuses_a_file_over_the_limit_with_a_400_naming_the_field(url, small_limit):
    project = ProjectFactory()
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    data = big_items(int(1.2 * MIB))
    response = api.post(url.format(project.slug), {"file": SimpleUploadedFile("items.json", data)}, format="multipart")
    assert response.status_code == 400
    assert response.json() == {"file": "The file 'items.json' is larger than the 1 MB limit for uploads."}
    assert not Item.objects.exists() and not Annotation.objects.exists()


def test_api_takes_a_file_just_under_the_limit(small_limit, django_capture_on_commit_callbacks):
    project = ProjectFactory()
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    data = items_json(7000)
    assert 0.9 * MIB < len(data) < MIB
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/projects/{project.slug}/items/import/",
                            {"file": SimpleUploadedFile("items.json", data)}, format="multipart")
    # Accepted, and (being larger than a request imports itself) imported by a job.
    assert response.status_code == 202 and Item.objects.count() == 7000
    assert api.get(response["Location"]).json()["status"] == "done"


@pytest.mark.parametrize("page", ["admin:annotation_project_import", "admin:annotation_project_crowd"])
def test_admin_import_pages_show_a_form_error(page, client, small_limit):
    project = ProjectFactory()
    client.force_login(UserFactory(role="admin", is_superuser=True))
    upload = SimpleUploadedFile("items.json", big_items(int(1.2 * MIB)))
    response = client.post(reverse(page, args=[project.pk]),
                           {"file": upload, "format": "json", "on_duplicate": "reject", "source": "mturk"})
    assert response.status_code == 200
    assert response.context["form"].errors["file"] == ["The file 'items.json' is larger than the 1 MB limit for uploads."]
    assert "larger than the 1 MB limit" in response.content.decode()
    assert not Item.objects.exists()


class EndlessUpload(io.RawIOBase):
    """A multipart body that claims ``size`` bytes of file and makes them up as they are read,
    counting how much the server reads."""

    BOUNDARY = "xyzzy"

    def __init__(self, size: int) -> None:
        self.head = (f"--{self.BOUNDARY}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"huge.csv\"\r\n"
                     "Content-Type: text/csv\r\n\r\n").encode()
        self.tail = f"\r\n--{self.BOUNDARY}--\r\n".encode()
        self.length = len(self.head) + size + len(self.tail)
        self.position = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = min(len(buffer), self.length - self.position)
        chunk = bytearray(n)
        for offset, part in ((0, self.head), (self.length - len(self.tail), self.tail)):
            lo, hi = max(offset, self.position), min(offset + len(part), self.position + n)
            if lo < hi:
                chunk[lo - self.position : hi - self.position] = part[lo - offset : hi - offset]
        buffer[:n] = chunk
        self.position += n
        return n


def test_a_10_gb_upload_is_neither_read_nor_kept(small_limit):
    project = ProjectFactory()
    body = EndlessUpload(10 * 1024**3)
    environ = APIRequestFactory()._base_environ(
        PATH_INFO=f"/api/projects/{project.slug}/items/import/", REQUEST_METHOD="POST",
        CONTENT_TYPE=f"multipart/form-data; boundary={EndlessUpload.BOUNDARY}", CONTENT_LENGTH=str(body.length),
        **{"wsgi.input": io.BufferedReader(body)},
    )
    request = WSGIRequest(environ)
    force_authenticate(request, user=UserFactory(role="admin"))
    tracemalloc.start()
    try:
        response = ItemImport.as_view()(request, slug=project.slug)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert response.status_code == 400
    assert response.data == {"file": "The file 'huge.csv' is larger than the 1 MB limit for uploads."}
    # Reading stopped at the limit (plus one buffer), and nothing near the size was held.
    assert body.position < small_limit + 2 * MIB
    assert peak < 8 * MIB
    assert not Item.objects.exists()


def test_the_default_decompression_limit_is_200_mb(settings):
    assert settings.IMPORT_MAX_DECOMPRESSED_BYTES == 200 * MIB


def test_decode_reads_bytes_and_binary_files_alike(tmp_path):
    text = "id,topic\np1,Schuluniformen – gut?\n"
    path = tmp_path / "items.csv.gz"
    path.write_bytes(gzip.compress(("\ufeff" + text).encode()))
    with path.open("rb") as fh:
        assert decode(fh) == text
    assert decode(path.read_bytes()) == text
    assert decode(io.BytesIO(text.encode("utf-8-sig"))) == text
    assert decode(bytearray(text.encode())) == text

    class Pipe:  # a stream that cannot seek back
        def __init__(self, data):
            self.inner = io.BytesIO(data)

        def read(self, size=-1):
            return self.inner.read(size)

    assert decode(Pipe(gzip.compress(text.encode()))) == text
    assert decode(Pipe(text.encode())) == text


def test_decode_names_the_line_of_invalid_utf8_and_damaged_gzip():
    for data in (b"id\nok\n\xff\xfe\n", io.BytesIO(b"id\nok\n\xff\xfe\n"), gzip.compress(b"id\nok\n\xff\n")):
        with pytest.raises(ImportFailed) as exc:
            decode(data)
        assert str(exc.value) == "line 3: the file is not valid UTF-8 (byte 0xff); save it as UTF-8"
    with pytest.raises(ImportFailed, match="the gzip file is damaged"):
        decode(gzip.compress(b"id\nok\n")[:-6])


def test_a_small_gzip_upload_is_imported_by_a_job(settings, django_capture_on_commit_callbacks):
    """The inline limit is measured on the upload, and a gzip file of a few kilobytes may unpack
    to many megabytes: it is always a job, never parsed within the request."""
    rows = "id,topic,prompt,stance,arg1_id,arg1_text,arg2_id,arg2_text\n" + "".join(
        f"p{n},t,Uniforms?,good,a{n},first text {n},b{n},second text {n}\n" for n in range(2000))
    packed = gzip.compress(rows.encode())
    assert len(packed) < settings.IMPORT_INLINE_MAX_BYTES < len(rows)
    project = ProjectFactory()
    api = APIClient()
    api.force_authenticate(UserFactory(role="admin"))
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(f"/api/projects/{project.slug}/items/import/",
                            {"file": SimpleUploadedFile("items.csv.gz", packed)}, format="multipart")
    assert response.status_code == 202
    assert api.get(response["Location"]).json()["status"] == "done"
    assert project.items.count() == 2000
    # The same rows unpacked and small enough are still imported at once (201).
    small = rows.splitlines()[0] + "\n" + "".join(
        f"q{n},t,Uniforms?,good,c{n},first text {n},d{n},second text {n}\n" for n in range(20))
    inline = api.post(f"/api/projects/{project.slug}/items/import/",
                      {"file": SimpleUploadedFile("items.csv", small.encode())}, format="multipart")
    assert inline.status_code == 201, inline.content
