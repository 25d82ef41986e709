"""The importers of ``tests/support/hostile_importers.py`` reached through the API twins of the
task types' tool pages, and the audio uploads (admin page and API), whose text is the zip's
``manifest.csv``. A zip bomb sent to the audio uploads is ``tests/security/test_probe_zip_bombs.py``'s
case, not repeated here."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from rest_framework.test import APIClient

from tests.support import audio
from tests.support.hostile_importers import (
    MANIFEST,
    MARK,
    Ctx,
    Importer,
    Refused,
    _error_lines,
    _job_outcome,
    _labelled_key_points,
    _post_job,
    _track2_files,
    _upload,
    key_point_sets_fields,
)
from tests.support.importer_files import KPA_ARGUMENTS, KPA_KEY_POINTS, KPA_LABELS


def _api_post(ctx: Ctx, url: str, data: dict[str, Any]) -> None:
    """POST as staff; a 400 is the refusal, a 202 the job whose outcome decides."""
    client = APIClient()
    client.force_authenticate(ctx.user)
    with ctx.capture(execute=True):
        response = client.post(url, data, format="multipart")
    assert response.status_code in (200, 201, 202, 400), response.status_code
    if response.status_code == 400:
        body = response.json()
        raise Refused("\n".join([str(body.get("detail", "")), *_error_lines(body.get("errors", [])), json.dumps(body)]))
    if response.status_code == 202:
        _job_outcome(ctx)


def key_points_api(ctx: Ctx, files: dict[str, bytes]) -> None:
    _api_post(ctx, f"/api/projects/{ctx.project.slug}/key-points/import/",
              {key.removesuffix(".csv"): _upload(key, data) for key, data in files.items()})


def _track2_fields(files: dict[str, bytes]) -> dict[str, Any]:
    sent = _track2_files(files)
    return {"arguments": _upload("arguments.csv", sent["arguments.csv"]),
            "key_points": _upload("key_points.csv", sent["key_points.csv"]),
            "predictions": _upload("predictions.json", sent["predictions.json"]), "system": "sys"}


def track2_build_api(ctx: Ctx, files: dict[str, bytes]) -> None:
    _api_post(ctx, f"/api/projects/{ctx.project.slug}/key-points/track2/", {
        **_track2_fields(files), "action": "build", "seed": 0, "show": "all", "counts": "topic", "ties": "official"})


def track2_score_api(ctx: Ctx, files: dict[str, bytes]) -> None:
    """Scored inside the request (it writes nothing): 200 with the score, or 400."""
    _api_post(ctx, f"/api/projects/{ctx.project.slug}/key-points/track2/", {
        **_track2_fields(files), "action": "score", "seed": 0, "show": "all", "counts": "topic", "ties": "official"})


def key_point_sets_api(ctx: Ctx, files: dict[str, bytes]) -> None:
    _api_post(ctx, f"/api/projects/{ctx.project.slug}/key-point-sets/build/", key_point_sets_fields(files))


def _media_zip(ctx: Ctx, files: dict[str, bytes]) -> Any:
    """The zip the audio uploads take: the (hostile) manifest and the audio file it names.
    Stored files go to a folder of the test's own, to be counted."""
    ctx.settings.MEDIA_ROOT = ctx.tmp / "media"
    return _upload("clips.zip", audio.zip_of({f"a {MARK}.wav": audio.wav()}, manifest=files["manifest.csv"]))


def _nothing_stored(ctx: Ctx) -> None:
    """A refused upload leaves no audio file in the storage (its own upload is deleted too)."""
    media = ctx.tmp / "media"
    assert not media.exists() or audio.stored_files(media) == []


def media_admin(ctx: Ctx, files: dict[str, bytes]) -> None:
    upload = _media_zip(ctx, files)
    try:
        _post_job(ctx, f"/admin/annotation/project/{ctx.project.pk}/media/", {"file": upload, "on_duplicate": "reject"})
    except Refused:
        _nothing_stored(ctx)
        raise


def media_api(ctx: Ctx, files: dict[str, bytes]) -> None:
    upload = _media_zip(ctx, files)
    try:
        _api_post(ctx, f"/api/projects/{ctx.project.slug}/media/", {"file": upload})
    except Refused:
        _nothing_stored(ctx)
        raise


def upload_importers() -> Iterator[Importer]:
    kpa = {"arguments.csv": KPA_ARGUMENTS, "key_points.csv": KPA_KEY_POINTS, "labels.csv": KPA_LABELS}
    yield Importer("key-points-files-api", kpa, "arguments.csv", key_points_api, task_type="key_points", web=True)
    track2 = {"arguments.csv": KPA_ARGUMENTS}
    yield Importer("track2-build-api", track2, "arguments.csv", track2_build_api, task_type="key_points", web=True)
    yield Importer("track2-score-api", track2, "arguments.csv", track2_score_api, task_type="key_points",
                   setup=_labelled_key_points, web=True)
    yield Importer("key-point-sets-api", track2, "arguments.csv", key_point_sets_api, task_type="key_point_sets",
                   web=True)
    from annotation.media import sources as media_sources
    from annotation.task_types import task_types

    # A type whose projects take audio: only their pages offer the upload.
    audio_type = next(t.slug for t in task_types() if "media" in t.admin_tools())
    manifest = {"manifest.csv": MANIFEST}
    for name, run in (("media-admin", media_admin), ("media-api", media_api)):
        yield Importer(name, manifest, "manifest.csv", run, task_type=audio_type, web=True,
                       size_limit=(media_sources, "MANIFEST_MAX_BYTES"))
