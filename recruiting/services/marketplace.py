"""Writes about workers arriving from a recruiting panel's study link (``recruiting.panels``: a
preset or the project's custom link): who they are, whether the project takes them, their
account, and their consent."""

from __future__ import annotations

import secrets

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from annotation.models import Project, WorkerProfile
from annotation.providers import LinkSetup, provider_of
from annotation.services.accounts import AccountError, user_create
from annotation.services.workers import EXTERNAL_ID_RE, marketplace_username
from recruiting.panels import PANELS, Panel


def link_setup(project: Project) -> LinkSetup:
    """How the project's study link names its workers, as its provider says; a project with no
    panel takes nobody by a link."""
    provider = provider_of(project)
    if provider is None:
        raise AccountError("This project does not take workers from marketplace links.")
    return provider.link_setup(project=project)


def marketplace_identity(*, project: Project, params) -> tuple[str, str] | None:
    """(panel, worker id) from a study link's query parameters, read from the one parameter the
    project's panel puts the worker id in, if the link carries it.

    The panel is the project's, never the link's: no link can pass a worker off as another
    panel's (a custom panel's name is never a preset's).
    """
    setup = link_setup(project)
    value = (params.get(setup.worker_param) or "").strip()
    return (setup.source, value) if value else None


def foreign_panel(*, project: Project, params) -> Panel | None:
    """The preset whose worker-id parameter a link carries when it is not the project's panel's:
    to tell the worker which study link they opened."""
    mine = link_setup(project).worker_param
    return next((p for p in PANELS.values() if p.worker_param != mine and params.get(p.worker_param)), None)


def marketplace_params(*, project: Project, params) -> dict[str, str]:
    """The parameters of the link that the project's panel records (each cut to 100 characters)."""
    return {k: params[k][:100] for k in link_setup(project).params if params.get(k)}


def is_preview(*, project: Project, params) -> bool:
    """A panel's preview of the task (MTurk shows a HIT before the worker accepts it with a
    placeholder assignment id)."""
    preview = link_setup(project).preview
    return preview is not None and params.get(preview[0]) == preview[1]


def marketplace_check(*, project: Project, source: str, external_id: str | None = None) -> None:
    """Refuse a link the project does not take: entry closed, another panel, malformed id."""
    if not project.external_entry:
        raise AccountError("This project does not take workers from marketplace links.")
    setup = link_setup(project)
    if source != setup.source:
        raise AccountError(
            f"This project does not accept workers from “{source}” (it takes workers from {setup.name}, "
            f"whose link carries {setup.worker_param}=…). Please open the study again from the marketplace "
            "that sent you."
        )
    if external_id is not None and not EXTERNAL_ID_RE.match(external_id):
        raise AccountError(f"The worker id in the link ({setup.worker_param}) is not valid.")


def marketplace_account(*, source: str, external_id: str) -> User | None:
    """The account already tied to a marketplace worker id, if any."""
    profile = WorkerProfile.objects.select_related("user").filter(source=source, external_id=external_id).first()
    return profile.user if profile else None


def _marketplace_user_create(*, source: str, external_id: str) -> User:
    base = marketplace_username(source=source, external_id=external_id)
    for attempt in range(5):
        # Someone may already hold the name (an annotator created by hand, say): then a suffix.
        username = base if attempt == 0 else f"{base}+{secrets.token_hex(3)}"
        try:
            with transaction.atomic():
                user = user_create(username=username, via=f"marketplace {source}")
                WorkerProfile.objects.filter(user=user).update(source=source, external_id=external_id)
            return user
        except IntegrityError:
            # The same worker opened the link twice at once; the other request made the account.
            existing = marketplace_account(source=source, external_id=external_id)
            if existing is not None:
                return existing
    raise AccountError("No account could be created for this worker id; please open the link again.")


def worker_from_marketplace(*, project: Project, source: str, external_id: str) -> User:
    """The account tied to a marketplace worker id, created on first arrival."""
    marketplace_check(project=project, source=source, external_id=external_id)
    user = marketplace_account(source=source, external_id=external_id)
    if user is None:
        user = _marketplace_user_create(source=source, external_id=external_id)
    project.members.add(user)
    return user
