"""Zip bombs as media uploads: one that says how far it unpacks, and one whose headers lie about
it. Both are refused with a message naming the file, within bounded memory, and nothing is
stored. (Gzip bombs: tests/security/test_import_gzip_bombs.py; JSON nesting and number bombs:
tests/annotation/test_hostile_records.py.)"""

from __future__ import annotations

import io
import struct
import tracemalloc
import zipfile

import pytest

from annotation.importers import ImportFailed
from annotation.models import MediaFile
from annotation.services import media_import_zip
from tests.factories import ProjectFactory
from tests.support import audio

pytestmark = pytest.mark.django_db
MIB = 1 << 20
UNPACKED = 64 * MIB


def bomb(*, lie: bool) -> bytes:
    """A WAV header and 64 MB of silence, deflated to about 64 KB; with ``lie``, both of its
    headers claim it unpacks to 1,000 bytes."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf, zf.open("clip.wav", "w", force_zip64=False) as member:
        member.write(audio.wav(frames=10))
        zeros = bytes(MIB)
        for _ in range(UNPACKED // MIB):
            member.write(zeros)
    data = bytearray(out.getvalue())
    if lie:
        info = zipfile.ZipFile(io.BytesIO(bytes(data))).infolist()[0]
        struct.pack_into("<I", data, info.header_offset + 22, 1000)  # the local header's size
        central = data.rindex(b"PK\x01\x02")
        struct.pack_into("<I", data, central + 24, 1000)  # the central directory's
    return bytes(data)


def stored_files(root) -> list:
    return [p for p in root.rglob("*") if p.is_file()] if root.exists() else []


@pytest.mark.parametrize("lie", [False, True], ids=["honest", "lying-headers"])
def test_a_zip_bomb_is_refused_in_bounded_memory_and_nothing_is_stored(lie, media_root, settings):
    settings.IMPORT_MAX_DECOMPRESSED_BYTES = 16 * MIB
    settings.MEDIA_MAX_FILE_MB = 16
    data = bomb(lie=lie)
    assert len(data) < UNPACKED / 500
    project = ProjectFactory()
    tracemalloc.start()
    try:
        with pytest.raises(ImportFailed) as exc:
            media_import_zip(project=project, archive=io.BytesIO(data), name="clips.zip")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = " ".join(str(e) for e in exc.value.errors)
    assert "clip" in message, message
    assert peak < 40 * MIB
    assert not MediaFile.objects.exists() and stored_files(media_root) == []
