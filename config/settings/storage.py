"""Stored files: uploads, the projects' audio (a folder or an S3 bucket), static files, and the
limits on what a request or an import may bring."""

from pathlib import Path

from config.settings.base import DEPLOYED, VAR_DIR
from config.settings.env import env_int, env_str, env_url

MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
# Uploads waiting for their import job and the projects' audio files go to the default storage:
# folders under MEDIA_ROOT (below), or an S3-compatible bucket when MEDIA_S3_BUCKET is set, so
# that web replicas and job workers on several machines share them. Neither is ever served at a
# public URL: audio goes out through a view that checks who asks (annotation/media_serving.py).
MEDIA_S3_BUCKET = env_str("MEDIA_S3_BUCKET", "")
if MEDIA_S3_BUCKET:
    _default_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": MEDIA_S3_BUCKET,
            # Empty for AWS itself; the URL of MinIO, Ceph, R2 … otherwise. Credentials come from
            # the usual AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (or an instance role).
            "endpoint_url": env_url("MEDIA_S3_ENDPOINT_URL", "", schemes=("https", "http")) or None,
            "region_name": env_str("MEDIA_S3_REGION", "") or None,
            "default_acl": None,
            # Never overwrite: every stored name is new, and a clash must not replace a file.
            "file_overwrite": False,
            # A file opened for reading is downloaded to a temporary file; past this size it
            # goes to disk instead of staying in memory (0, the default, would keep it in memory).
            "max_memory_size": 2 * 1024 * 1024,
        },
    }
else:
    _default_storage = {"BACKEND": "django.core.files.storage.FileSystemStorage"}
# On S3, an audio player's range requests are redirected to a presigned URL of the object,
# valid this many seconds (annotation/media_serving.py).
MEDIA_PRESIGNED_SECONDS = env_int("MEDIA_PRESIGNED_SECONDS", 300)
STORAGES = {
    "default": _default_storage,
    "staticfiles": {
        "BACKEND": "runtime.staticfiles.StaticFilesStorage"
        if DEPLOYED
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Form fields and JSON bodies (not files) may hold this much; Django refuses larger ones.
DATA_UPLOAD_MAX_MEMORY_SIZE = 50 * 1024 * 1024
# Uploaded files stay in memory up to this size, then go to a temporary file...
FILE_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
# ...and the files of one request may add up to no more than this: the first handler stops
# passing on a file past it, so an oversized upload never reaches memory or disk whole
# (annotation/uploads.py).
UPLOAD_MAX_BYTES = env_int("UPLOAD_MAX_MB", 200) * 1024 * 1024
FILE_UPLOAD_HANDLERS = [
    "annotation.uploads.UploadLimitHandler",
    "django.core.files.uploadhandler.MemoryFileUploadHandler",
    "django.core.files.uploadhandler.TemporaryFileUploadHandler",
]
# A gzipped import may unpack to at most this much; beyond it the import is refused, so a small
# "gzip bomb" cannot fill the server's memory.
IMPORT_MAX_DECOMPRESSED_BYTES = env_int("IMPORT_MAX_DECOMPRESSED_MB", 200) * 1024 * 1024
# One audio file may be at most this large (MB), uploaded alone or inside a zip; a zip of audio
# files may unpack to IMPORT_MAX_DECOMPRESSED_MB in all and hold at most MEDIA_MAX_ZIP_MEMBERS
# entries, so that a small zip cannot make the server unpack or list without end.
MEDIA_MAX_FILE_MB = env_int("MEDIA_MAX_FILE_MB", 50)
MEDIA_MAX_ZIP_MEMBERS = env_int("MEDIA_MAX_ZIP_MEMBERS", 10_000)
