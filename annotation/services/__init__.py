"""Writes of the crowd workflow, one module per concern. The writes of the annotation loop and
its administration (items, the assignment engine, submission, review, workers and media
files) are imported from here; the others from their modules: accounts, marketplace, imports
(uploaded files, inline or as jobs), crowd_results, revisions, tallies."""

from annotation.services.engine import (
    NextResult,
    assignment_next,
    assignment_return,
    can_work_on,
    leases_expire,
    set_status,
    worker_profile,
)
from annotation.services.errors import WorkflowError
from annotation.services.items import (
    ImportResult,
    items_import,
    items_import_file,
    items_remove_unused,
    project_set_redundancy,
)
from annotation.services.media.files import (
    MediaImportResult,
    MediaInUse,
    media_files_delete,
    media_import,
    media_import_file,
    media_import_folder,
    media_import_upload,
    media_import_zip,
)
from annotation.services.review import assignment_review, assignments_review, worker_work_reject
from annotation.services.submission import SubmitResult, annotation_submit
from annotation.services.workers import worker_block, worker_unblock

__all__ = [
    "ImportResult",
    "MediaImportResult",
    "NextResult",
    "SubmitResult",
    "WorkflowError",
    "annotation_submit",
    "assignment_next",
    "assignment_return",
    "assignment_review",
    "assignments_review",
    "can_work_on",
    "items_import",
    "items_import_file",
    "items_remove_unused",
    "leases_expire",
    "MediaInUse",
    "media_files_delete",
    "media_import",
    "media_import_file",
    "media_import_folder",
    "media_import_upload",
    "media_import_zip",
    "project_set_redundancy",
    "set_status",
    "worker_block",
    "worker_profile",
    "worker_unblock",
    "worker_work_reject",
]
