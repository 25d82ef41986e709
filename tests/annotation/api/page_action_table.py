"""The table of page actions and their API twins, which ``test_page_action_parity`` holds.

Every page (URL name of the pages' urlconfs), every project tool and action of the Django admin,
and every admin form whose save or delete goes through a service is one row here:

- ``TWINS``: the action, and the API operation (URL name and method) that does the same through
  the same service with the same checks;
- ``READS``: a page that only shows or downloads, and where its data is in the API (``None``: a
  picture or a file drawn from data the API gives);
- ``BROWSER``: steps of a browser session (logging in, passwords, a marketplace's link), which
  an API client does not take: it authenticates with a token (``api-token``).

A new page, tool or admin action that is in none of them fails the test: give it an API twin,
or say here why it needs none.
"""

from __future__ import annotations

# (page, what it does) -> (API URL name, method)
TWINS: dict[tuple[str, str], tuple[str, str]] = {
    # The annotator's pages.
    ("url:annotate", "take the next item"): ("api-next", "POST"),
    ("url:submit", "submit an answer"): ("api-submit", "POST"),
    ("url:skip", "give an item back unanswered"): ("api-skip", "POST"),
    ("url:edit", "show an answer to change"): ("api-annotation", "GET"),
    ("url:revise", "change an answer"): ("api-annotation", "PUT"),
    ("url:flag", "report an item as broken"): ("api-flag", "POST"),
    ("url:qualification-retry", "start another qualification round"): ("api-qualification-retry", "POST"),
    ("url:join", "join a project by its code"): ("api-join", "POST"),
    ("url:welcome", "accept the welcome and consent text"): ("api-consent", "POST"),
    ("url:assignment-media", "play an assignment's media"): ("api-assignment-media", "GET"),
    # Staff pages.
    ("url:bonuses-pay", "pay owed bonuses through Prolific"): ("api-bonus-pay", "POST"),
    ("url:bonuses-reconcile", "reconcile bonus payments with Prolific"): ("api-bonus-reconcile", "POST"),
    ("url:bonus-payment-settle", "confirm an unconfirmed bonus payment"): ("api-bonus-payment-confirm", "POST"),
    ("url:bonus-payment-settle", "release an unconfirmed bonus payment"): ("api-bonus-payment-release", "POST"),
    ("url:project-pay", "set the reward per item"): ("api-pay-rate", "PUT"),
    ("url:prolific-action", "link a Prolific study"): ("api-prolific", "PUT"),
    ("url:prolific-action", "unlink a Prolific study"): ("api-prolific", "DELETE"),
    ("url:prolific-action", "read the study's submissions now"): ("api-prolific-sync", "POST"),
    ("url:prolific-action", "approve or reject chosen submissions"): ("api-prolific-decide", "POST"),
    ("url:export", "export annotations (audited)"): ("api-annotations", "GET"),
    ("url:export-bonuses", "export the bonus ledger (audited)"): ("api-bonuses", "GET"),
    ("url:quality", "change the quality settings"): ("api-quality", "PATCH"),
    ("url:quality-training", "send every worker to a training round"): ("api-training", "POST"),
    ("url:adjudication-item", "decide a contested item"): ("api-item-adjudication", "POST"),
    ("url:flag-withdraw", "withdraw a flagged item"): ("api-flag-withdraw", "POST"),
    ("url:flag-dismiss", "dismiss an item's flags"): ("api-flag-dismiss", "POST"),
    ("url:flag-withdraw-undo", "undo the withdrawal of a flagged item"): ("api-flag-withdraw-undo", "POST"),
    ("url:quality-worker-action", "block, unblock, approve, reject, bonus, training of a worker"):
        ("api-worker-action", "POST"),
    ("url:audit-csv", "download the project's audit log (audited)"): ("api-audit", "GET"),
    ("url:audit-csv-site", "download the whole site's audit log (superusers)"): ("api-audit-site", "GET"),
    # Analysis pages.
    ("url:analysis-dashboard", "start an agreement run"): ("api-analysis-create", "POST"),
    ("url:report-page", "start a report's run"): ("api-analysis-create", "POST"),
    ("url:gold-page", "start a gold pipeline run"): ("api-analysis-create", "POST"),
    ("url:analysis-dashboard", "restart a run"): ("api-analysis-restart", "POST"),
    ("url:analysis-dashboard", "cancel a run"): ("api-analysis-cancel", "POST"),
    ("url:report-page", "restart a run"): ("api-analysis-restart", "POST"),
    ("url:report-page", "cancel a run"): ("api-analysis-cancel", "POST"),
    ("url:gold-page", "restart a run"): ("api-analysis-restart", "POST"),
    ("url:gold-page", "cancel a run"): ("api-analysis-cancel", "POST"),
    ("url:analysis-recompute-all", "queue every report again"): ("api-analysis-recompute-all", "POST"),
    ("url:quality-rule-add", "add a quality rule"): ("api-rules", "POST"),
    ("url:quality-rule-edit", "change a quality rule"): ("api-rule", "PATCH"),
    ("url:quality-rule-enable", "enable a quality rule"): ("api-rule", "PATCH"),
    ("url:quality-rule-disable", "disable a quality rule"): ("api-rule", "PATCH"),
    ("url:quality-rule-delete", "delete a quality rule"): ("api-rule", "DELETE"),
    ("url:quality-rules-check", "check the rules now"): ("api-rules-check", "POST"),
    # Task types' pages.
    ("url:key-points-evaluations", "score a system's predictions"): ("api-key-points-evaluations", "POST"),
    ("url:key-points-evaluation-cancel", "cancel an evaluation"): ("api-key-points-evaluation-cancel", "POST"),
    ("url:gold-reject-worker", "reject a worker's work and recompute the gold data"):
        ("api-gold-reject-worker", "POST"),
    # The Django admin's project tools.
    ("admin:annotation_project_import", "import items"): ("api-items-import", "POST"),
    ("admin:annotation_project_crowd", "import crowd results"): ("api-crowd-import", "POST"),
    ("admin:annotation_project_import_job", "cancel an import"): ("api-import-job-cancel", "POST"),
    ("admin:annotation_project_import_job", "restart an import"): ("api-import-job-restart", "POST"),
    ("admin:annotation_project_media", "upload audio files"): ("api-media", "POST"),
    ("admin:annotation_project_annotators", "create annotators (invites or passwords)"): ("api-annotators", "POST"),
    ("admin:annotation_project_pairs", "generate argument pairs"): ("api-pairwise-pairs", "POST"),
    ("admin:annotation_project_counter_speech", "build counter-speech questions"): ("api-counter-speech-build", "POST"),
    ("admin:annotation_project_key_points", "import the key-point corpus"): ("api-key-points-import", "POST"),
    ("admin:annotation_project_key_points_track2", "build track 2 items or score a system"):
        ("api-key-points-track2", "POST"),
    ("admin:annotation_project_key_point_sets", "build key-point set comparisons"): ("api-key-point-sets-build", "POST"),
    # The Django admin's actions and the forms that save through a service.
    ("admin-action:annotation.project.promote_gold", "promote unanimous items to gold"): ("api-gold-promote", "POST"),
    ("admin-action:annotation.assignment.approve", "approve chosen assignments"): ("api-assignments-review", "POST"),
    ("admin-action:annotation.assignment.reject", "reject chosen assignments"): ("api-assignments-review", "POST"),
    ("admin-action:recruiting.bonus.mark_paid", "mark chosen bonuses paid"): ("api-bonuses-mark-paid", "POST"),
    ("admin-action:auth.user.block", "block workers everywhere"): ("api-worker-site-action", "POST"),
    ("admin-action:auth.user.unblock", "unblock workers everywhere"): ("api-worker-site-action", "POST"),
    ("admin-form:recruiting.bonus.save", "grant a bonus"): ("api-worker-action", "POST"),
    ("admin-form:recruiting.bonus.delete", "remove a bonus"): ("api-bonus", "DELETE"),
    ("admin-form:annotation.mediafile.delete", "delete an audio file"): ("api-media-file", "DELETE"),
    ("admin-form:auth.user.delete", "delete an account, recorded in the audit log"): ("api-account", "DELETE"),
    ("admin-form:annotation.project.save", "create a project"): ("api-project-create", "POST"),
    ("admin-form:annotation.project.save", "change a project's settings, options and state"):
        ("api-project-settings", "PATCH"),
}

# Pages that only show or download: page -> the API operation with its data (None: none needed).
READS: dict[str, tuple[str | None, str]] = {
    "url:home": (None, "a link to the projects page"),
    "url:bonuses": ("api-bonus-payments", "each bonus and its payment state; pay per hour: api-pay-rate"),
    "url:prolific": ("api-prolific-submissions", "the study's submissions; the link itself: api-prolific"),
    "url:projects": ("api-projects", "the projects one may work on"),
    "url:guidelines": ("api-project", "the guidelines are a field of the project"),
    "url:media": ("api-media-file", "staff's media by key; workers get media through their assignment"),
    "url:overview": ("api-progress", "progress; items and workers: api-items, api-worker"),
    "url:adjudication": ("api-adjudication", "the adjudication queue"),
    "url:flags": ("api-flags", "the flagged items"),
    "url:quality-worker": ("api-worker", "the worker page's figures"),
    "url:quality-worker-first-shown": (None, "a picture of the worker's first-shown share (api-worker: first_shown)"),
    "url:quality-rules": ("api-rules", "rules; decisions: api-rule-decisions"),
    "url:analysis-figure": (None, "a picture drawn from the run's result (api-analysis-run)"),
    "url:analysis-hourly": (None, "a picture of answers per hour"),
    "url:analysis-workers-csv": ("api-analysis-run", "the run's result holds the worker table"),
    "url:report-figure": (None, "a picture drawn from the run's result (api-analysis-run)"),
    "url:report-file": ("api-analysis-run", "the run's result holds the file's rows"),
    "url:key-points-evaluation": ("api-key-points-evaluation", "an evaluation's state and result"),
    "url:key-points-corpus": ("api-items", "the imported corpus is the project's items"),
    "url:key-points-labels-zip": ("api-analysis-run", "the run's result holds the labels"),
    "url:gold-graph": (None, "a picture drawn from the run's result (api-analysis-run)"),
    "url:gold-file": ("api-analysis-run", "the run's result holds the gold data"),
    "url:response-scores-jsonl": ("api-analysis-run", "the run's result holds the scores"),
}

# Steps of a browser session: an API client authenticates with a token instead.
BROWSER: dict[str, str] = {
    "url:password_reset": "asks for a reset link by e-mail",
    "url:password_reset_done": "says the link was sent",
    "url:password_reset_confirm": "sets a new password from the e-mailed link",
    "url:password_reset_complete": "says the password was set",
    "url:password_change": "changes one's password in the browser",
    "url:invite": "sets a password from a one-time invite link and logs in",
    "url:start": "a marketplace's study link: makes or finds the worker's account and logs in",
}
