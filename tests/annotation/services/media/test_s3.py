"""The same import and serving on an S3-compatible bucket (moto's stand-in for S3, in process):
files are uploaded streaming with their sniffed type, read back by range, and a refused import
leaves the bucket empty."""

import io

import boto3
import pytest
from moto import mock_aws

from annotation.importers import ImportFailed
from annotation.models import MediaFile
from annotation.services import media_import_zip
from annotation.views.media.serving import media_url
from tests.factories import ProjectFactory, UserFactory
from tests.support import audio

pytestmark = pytest.mark.django_db
BUCKET = "argcrowd-media-test"


@pytest.fixture
def bucket(settings, monkeypatch):
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_SESSION_TOKEN": "testing", "AWS_DEFAULT_REGION": "us-east-1"}.items():
        monkeypatch.setenv(name, value)
    with mock_aws():
        s3 = boto3.client("s3", region_name="us-east-1")
        s3.create_bucket(Bucket=BUCKET)
        settings.STORAGES = {**settings.STORAGES, "default": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {"bucket_name": BUCKET, "region_name": "us-east-1", "file_overwrite": False,
                        "max_memory_size": 1024},
        }}
        yield s3


def keys(s3) -> list[str]:
    return sorted(o["Key"] for o in s3.list_objects_v2(Bucket=BUCKET).get("Contents", []))


def test_files_go_to_the_bucket_and_come_back_by_range(bucket, client):
    project = ProjectFactory()
    clip = audio.wav(frames=2000)
    data = audio.zip_of({"a.wav": clip, "b.mp3": audio.mp3_frames()}, manifest="key,file\nspeech.wav,a.wav\nb,b.mp3\n")
    result = media_import_zip(project=project, archive=io.BytesIO(data), name="clips.zip")
    assert result.created == 2
    stored = MediaFile.objects.get(key="speech.wav")
    assert keys(bucket) == sorted(m.file.name for m in MediaFile.objects.all())
    head = bucket.head_object(Bucket=BUCKET, Key=stored.file.name)
    assert head["ContentType"] == "audio/wav" and head["ContentLength"] == len(clip)

    client.force_login(UserFactory(role="researcher"))
    # A range request goes to the bucket itself, by a presigned URL, which gives the range.
    response = client.get(media_url(project, "speech.wav"), headers={"Range": "bytes=100-199"})
    assert response.status_code == 307
    import requests

    fetched = requests.get(response["Location"], headers={"Range": "bytes=100-199"}, timeout=10)
    assert fetched.status_code == 206 and fetched.content == clip[100:200]
    # The whole file, without a range, is streamed by the platform.
    whole = client.get(media_url(project, "speech.wav"))
    assert whole.status_code == 200 and b"".join(whole.streaming_content) == clip


def test_a_refused_import_leaves_the_bucket_empty(bucket, monkeypatch):
    project = ProjectFactory()
    data = audio.zip_of({"a.wav": audio.wav(), "b.wav": audio.wav()})

    def broken(*args, **kwargs):
        raise RuntimeError("the database went away")

    with monkeypatch.context() as patch, pytest.raises(RuntimeError):
        patch.setattr(MediaFile.objects, "bulk_create", broken)
        media_import_zip(project=project, archive=io.BytesIO(data), name="clips.zip")
    assert keys(bucket) == []
    with pytest.raises(ImportFailed):
        media_import_zip(project=project, archive=io.BytesIO(audio.zip_of({"a.wav": audio.HTML})), name="x.zip")
    assert keys(bucket) == []
