"""How the API describes itself: drf-spectacular's settings for the OpenAPI 3.1 schema served at
``/api/schema/`` and the browsable docs at ``/api/docs/`` (Swagger UI from the sidecar package, so
the page needs no CDN and works offline)."""

from __future__ import annotations

SPECTACULAR_SETTINGS = {
    "TITLE": "ArgCrowd API",
    "DESCRIPTION": (
        "Projects, items, assignments and answers of the crowd-annotation platform, for annotators' "
        "clients and staff scripts. Authenticate with `Authorization: Token <key>` (POST /api/token/) "
        "or a browser session. What a caller may not see answers 404."
    ),
    "VERSION": "1",
    "OAS_VERSION": "3.1.0",
    "SERVE_INCLUDE_SCHEMA": True,
    "SCHEMA_PATH_PREFIX": r"/api/",
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "LICENSE": {"name": "Apache-2.0"},
    # Every operation names itself (``operation_id``): a client generated from the schema keeps
    # its method names when a path changes.
    "TAGS": [
        {"name": "auth", "description": "API tokens."},
        {"name": "annotating", "description": "The annotator's loop: next item, submit (`?next=1`: one request "
                                              "per item), change an answer, media and playback, flags."},
        {"name": "projects", "description": "Projects and their progress."},
        {"name": "task types", "description": "What each task type takes and gives."},
        {"name": "items", "description": "Items and their import, crowd results, import jobs."},
        {"name": "media", "description": "A project's audio files."},
        {"name": "exports", "description": "Annotations and the bonus ledger."},
        {"name": "quality", "description": "Quality settings, gold promotion, re-calibration."},
        {"name": "workers", "description": "A worker's figures, the actions on them, the audit log."},
        {"name": "adjudication", "description": "Contested items, decisions, flagged items."},
        {"name": "rules", "description": "Quality rules and their decisions."},
        {"name": "analysis", "description": "Analysis runs."},
        {"name": "key points", "description": "Scoring a key-point system's predictions."},
        {"name": "prolific", "description": "A project's Prolific study: link, sync, submissions, approval "
                                            "and rejection; Prolific's signed webhook."},
        {"name": "bonus payments", "description": "Paying the bonus ledger through Prolific, reconciliation, "
                                                  "and the pay per hour a reward implies."},
        {"name": "schema", "description": "This schema."},
    ],
    # The two ways in, described for readers of the docs page (the names are drf-spectacular's).
    "APPEND_COMPONENTS": {
        "securitySchemes": {
            "tokenAuth": {"type": "apiKey", "in": "header", "name": "Authorization",
                          "description": "`Authorization: Token <key>`; the key comes from POST /api/token/ "
                                         "(or the admin)."},
            "cookieAuth": {"type": "apiKey", "in": "cookie", "name": "sessionid",
                           "description": "The session of a browser logged in at /accounts/login/; POST, PUT, "
                                          "PATCH and DELETE also need the CSRF token (`X-CSRFToken` header)."},
        },
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "annotation.api.autoschema.nulls_as_openapi_3_1",
    ],
    # Path parameters as the URL patterns match them: anything else is no URL of the API.
    "PATH_CONVERTER_OVERRIDES": {
        "int": {"type": "integer", "minimum": 0},
        "slug": {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$"},
        "str": {"type": "string", "pattern": "^[^/]+$"},
        "path": {"type": "string", "pattern": "^.+$"},
    },
    # Choice sets that share a field name (status, kind, action) get names of their own.
    "ENUM_NAME_OVERRIDES": {
        "JobStatusEnum": "jobs.models.JobStatus",
        "AssignmentStatusEnum": "annotation.models.Assignment.Status",
        "ImportKindEnum": "annotation.models.ImportJob.Kind",
        "RuleKindEnum": "quality.models.QualityRule.Kind",
        "RuleActionEnum": "quality.models.QualityRule.Action",
        "FlagProblemEnum": "quality.models.ItemFlag.Problem",
        "VerdictEnum": [("approve", "approve"), ("reject", "reject")],
    },
}
