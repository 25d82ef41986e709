"""Importing a project's audio files: zips with and without a manifest, one file, a folder; every
refusal names the line and field or the file, and a refused import leaves neither rows nor files."""

import hashlib
import io
import re

import pytest
from django.db import IntegrityError

from annotation.importers import ImportFailed
from annotation.models import MediaFile
from annotation.selectors.media import media_keys_missing
from annotation.services import (
    media_files_delete,
    media_import_file,
    media_import_folder,
    media_import_zip,
)
from tests.factories import ProjectFactory
from tests.support import audio
from tests.support.audio import stored_files, zip_of

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("media_root")]


@pytest.fixture
def project():
    return ProjectFactory()


def import_zip(project, data: bytes, **options):
    return media_import_zip(project=project, archive=io.BytesIO(data), name="clips.zip", **options)


def messages(exc_info) -> list[str]:
    return [str(e) for e in exc_info.value.errors]


def test_a_zip_with_a_manifest_stores_each_file_under_its_key(project, media_root):
    data = zip_of({"audio/s81.mp3": audio.mp3_frames(), "audio/s82.wav": audio.wav(), "notes.txt": b"x"},
                  manifest="key,file\nspeech_81_pro.mp3,audio/s81.mp3\nspeech_82_con.wav,audio/s82.wav\n")
    result = import_zip(project, data)
    assert (result.created, result.replaced, result.skipped) == (2, 0, 0)
    stored = {m.key: m for m in project.media_files.all()}
    assert stored["speech_81_pro.mp3"].content_type == "audio/mpeg"
    assert stored["speech_82_con.wav"].content_type == "audio/wav"
    wav = stored["speech_82_con.wav"]
    assert wav.size == len(audio.wav()) and wav.sha256 == hashlib.sha256(audio.wav()).hexdigest()
    # Stored under generated names with the sniffed type's extension, never the uploaded ones.
    names = stored_files(media_root)
    assert len(names) == 2 and all(n.startswith(f"media/{project.pk}/") for n in names)
    assert sorted(n.rsplit(".", 1)[1] for n in names) == ["mp3", "wav"]
    assert not any("s81" in n or "speech" in n for n in names)
    with wav.file.open("rb") as f:
        assert f.read() == audio.wav()


def test_a_zip_without_manifest_keys_audio_files_by_name(project):
    data = zip_of({"clips/a.ogg": audio.ogg_opus(), "b.flac": audio.flac(), "c.m4a": audio.m4a(),
                   "d.webm": audio.webm(), "README.md": b"# clips", "__MACOSX/clips/._a.ogg": b"\x00\x05\x16\x07",
                   "clips/.DS_Store": b"\x00"})
    result = import_zip(project, data)
    assert (result.created, result.skipped) == (4, 3)
    assert dict(project.media_files.values_list("key", "content_type")) == {
        "a.ogg": "audio/ogg", "b.flac": "audio/flac", "c.m4a": "audio/mp4", "d.webm": "audio/webm"}


def test_a_manifest_row_naming_a_missing_file_is_refused_by_line(project, media_root):
    data = zip_of({"a.mp3": audio.mp3_frames()}, manifest="key,file\na,a.mp3\nb,missing.mp3\n")
    with pytest.raises(ImportFailed) as exc:
        import_zip(project, data)
    assert messages(exc) == ["line 3, field 'file': no file 'missing.mp3' in the zip or folder"]
    assert not MediaFile.objects.exists() and stored_files(media_root) == []


def test_manifest_rows_are_checked_field_by_field(project):
    manifest = "key,file\na.mp3,a.mp3\na.mp3,b.mp3\n,a.mp3\n../up.mp3,../../etc/passwd\n"
    data = zip_of({"a.mp3": audio.mp3_frames(), "b.mp3": audio.mp3_frames()}, manifest=manifest)
    with pytest.raises(ImportFailed) as exc:
        import_zip(project, data)
    assert messages(exc) == [
        "line 3, field 'key': 'a.mp3' is already the key of line 2",
        "line 4, field 'key': must not be empty",
        "line 5, field 'key': must be a file name, or names joined by single '/' without '.' or '..'",
        "line 5, field 'file': '../../etc/passwd' must be a path inside the zip or folder (no '..', not from the root)",
    ]


def test_a_manifest_without_its_columns_is_refused(project):
    with pytest.raises(ImportFailed, match="needs a header with the columns key,file"):
        import_zip(project, zip_of({"a.mp3": audio.mp3_frames()}, manifest="name,path\na,a.mp3\n"))


def test_a_manifest_in_a_subfolder_is_not_silently_ignored(project):
    data = zip_of({"clips/manifest.csv": b"key,file\nx,clips/a.mp3\n", "clips/a.mp3": audio.mp3_frames()})
    with pytest.raises(ImportFailed, match="must be at the top of the zip or folder, not at 'clips/manifest.csv'"):
        import_zip(project, data)


@pytest.mark.parametrize("name", ["../evil.mp3", "/etc/evil.mp3", "clips/../../evil.mp3", "C:\\evil.mp3",
                                  "clips\\..\\..\\evil.mp3"])
def test_a_zip_with_a_path_that_climbs_out_is_refused(project, name, media_root):
    data = zip_of({"good.mp3": audio.mp3_frames(), name: audio.mp3_frames()})
    with pytest.raises(ImportFailed) as exc:
        import_zip(project, data)
    assert messages(exc) == [f"file: {name!r} in the zip has an unsafe path (no '..', not from the root)"]
    assert not MediaFile.objects.exists() and stored_files(media_root) == []


def test_a_file_over_the_size_limit_is_refused(project, settings, media_root):
    settings.MEDIA_MAX_FILE_MB = 1
    big = audio.wav(frames=600_000)  # 1.2 MB
    data = zip_of({"small.wav": audio.wav(), "big.wav": big}, manifest="key,file\nsmall,small.wav\nbig,big.wav\n")
    with pytest.raises(ImportFailed) as exc:
        import_zip(project, data)
    assert messages(exc) == [f"line 3, field 'file': 'big.wav' is {len(big)} bytes, more than the 1 MB limit for one audio file"]
    assert not MediaFile.objects.exists() and stored_files(media_root) == []


def test_a_file_longer_than_it_said_is_stopped_and_its_partial_copy_deleted(project, settings, media_root):
    settings.MEDIA_MAX_FILE_MB = 1
    big = audio.wav(frames=600_000)
    with pytest.raises(ImportFailed, match="'big.wav' is larger than the 1 MB limit"):
        media_import_file(project=project, data=io.BytesIO(big), name="big.wav", size=1000)
    assert not MediaFile.objects.exists() and stored_files(media_root) == []


def test_a_zip_that_unpacks_beyond_the_limit_is_refused_before_reading(project, settings):
    settings.IMPORT_MAX_DECOMPRESSED_BYTES = 10_000
    data = zip_of({"a.wav": audio.wav(frames=3000), "b.wav": audio.wav(frames=3000)})
    with pytest.raises(ImportFailed, match="'clips.zip' unpacks to 12088 bytes, more than the 10000 bytes limit"):
        import_zip(project, data)


def test_a_zip_with_too_many_entries_is_refused(project, settings):
    settings.MEDIA_MAX_ZIP_MEMBERS = 3
    data = zip_of({f"{i}.mp3": audio.mp3_frames(1) for i in range(4)})
    with pytest.raises(ImportFailed, match="'clips.zip' holds more than the limit of 3 entries"):
        import_zip(project, data)


def test_something_that_is_not_a_zip_is_refused(project):
    with pytest.raises(ImportFailed, match="'clips.zip' is not a readable zip file"):
        import_zip(project, b"PK\x03\x04 but nothing else")


def test_two_files_of_one_name_need_a_manifest(project):
    data = zip_of({"pro/81.mp3": audio.mp3_frames(), "con/81.mp3": audio.mp3_frames()})
    with pytest.raises(ImportFailed) as exc:
        import_zip(project, data)
    assert messages(exc) == ["file: 'con/81.mp3' has the same file name as 'pro/81.mp3'; give them keys in a manifest.csv"]


def test_keys_already_in_the_project_are_refused_or_replaced(project, media_root, django_capture_on_commit_callbacks):
    import_zip(project, zip_of({"a.mp3": audio.mp3_frames(), "b.mp3": audio.mp3_frames()}))
    old_name = MediaFile.objects.get(key="a.mp3").file.name
    again = zip_of({"a.mp3": audio.wav(), "c.mp3": audio.mp3_frames()}, manifest="key,file\nc.mp3,c.mp3\na.mp3,a.mp3\n")
    with pytest.raises(ImportFailed) as exc:
        import_zip(project, again)
    assert messages(exc) == ["line 3, field 'key': 'a.mp3' already exists in this project (choose 'replace' to replace it)"]
    assert project.media_files.count() == 2 and len(stored_files(media_root)) == 2

    with django_capture_on_commit_callbacks(execute=True):
        result = import_zip(project, again, on_duplicate="replace")
    assert (result.created, result.replaced) == (1, 1)
    replaced = MediaFile.objects.get(key="a.mp3")
    # Sniffed, not taken from the name: the new a.mp3 is a WAV.
    assert replaced.content_type == "audio/wav" and replaced.size == len(audio.wav())
    assert old_name not in stored_files(media_root) and len(stored_files(media_root)) == 3


def test_a_failed_write_deletes_the_files_already_stored(project, media_root, monkeypatch):
    def broken(*args, **kwargs):
        raise IntegrityError("the database refused the rows")

    monkeypatch.setattr(MediaFile.objects, "bulk_create", broken)
    with pytest.raises(IntegrityError):
        import_zip(project, zip_of({"a.mp3": audio.mp3_frames(), "b.wav": audio.wav()}))
    assert stored_files(media_root) == []


def test_a_single_file_takes_its_name_or_the_given_key(project):
    media_import_file(project=project, data=io.BytesIO(audio.flac()), name="take1.flac", size=len(audio.flac()))
    media_import_file(project=project, data=io.BytesIO(audio.flac()), name="x.flac", size=len(audio.flac()),
                      key="speeches/81.flac")
    assert sorted(project.media_files.values_list("key", flat=True)) == ["speeches/81.flac", "take1.flac"]
    with pytest.raises(ImportFailed, match=re.escape("field 'key': 'bad\\x00key' must not contain control characters")):
        media_import_file(project=project, data=io.BytesIO(audio.flac()), name="x.flac", size=10, key="bad\x00key")


def test_a_folder_imports_like_a_zip_and_links_out_of_it_are_refused(project, tmp_path):
    folder = tmp_path / "clips"
    (folder / "pro").mkdir(parents=True)
    (folder / "pro" / "81.mp3").write_bytes(audio.mp3_frames())
    (folder / "82.wav").write_bytes(audio.wav())
    assert media_import_folder(project=project, folder=folder).created == 2
    (folder / "manifest.csv").write_text("key,file\nspeech_83.wav,82.wav\nsecret,../secret.wav\n")
    (tmp_path / "secret.wav").write_bytes(audio.wav())
    with pytest.raises(ImportFailed) as exc:
        media_import_folder(project=project, folder=folder)
    assert messages(exc) == ["line 3, field 'file': '../secret.wav' must be a path inside the zip or folder (no '..', not from the root)"]
    (folder / "manifest.csv").write_text("key,file\nsecret,link.wav\n")
    (folder / "link.wav").symlink_to(tmp_path / "secret.wav")
    with pytest.raises(ImportFailed, match="line 2, field 'file': no file 'link.wav'"):
        media_import_folder(project=project, folder=folder)


def test_task_types_find_the_keys_a_project_lacks(project):
    import_zip(project, zip_of({"speech 81.mp3": audio.mp3_frames()}))
    assert media_keys_missing(project=project, keys=["x.mp3", "speech 81.mp3", "x.mp3", "y.wav"]) == ["x.mp3", "y.wav"]
    assert media_keys_missing(project=ProjectFactory(), keys=["speech 81.mp3"]) == ["speech 81.mp3"]


def test_deleting_files_deletes_their_stored_copies(project, media_root, django_capture_on_commit_callbacks):
    import_zip(project, zip_of({"a.mp3": audio.mp3_frames(), "b.wav": audio.wav()}))
    with django_capture_on_commit_callbacks(execute=True):
        assert media_files_delete(files=project.media_files.filter(key="a.mp3")) == 1
    assert list(project.media_files.values_list("key", flat=True)) == ["b.wav"]
    assert [n.rsplit(".", 1)[1] for n in stored_files(media_root)] == ["wav"]
