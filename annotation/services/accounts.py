"""Writes about people: roles, annotator accounts, invites, join codes, marketplace arrivals."""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, Group, Permission
from django.db import IntegrityError, transaction
from django.db.models.functions import Lower
from django.utils import timezone

from annotation.importers import ImportFailed, RowError
from annotation.models import Consent, Invite, Project, WorkerProfile

User = get_user_model()
Role = WorkerProfile.Role

USERNAME_RE = re.compile(r"^[\w.@+-]{1,150}$")
EXTERNAL_ID_RE = re.compile(r"^[A-Za-z0-9_.@-]{1,100}$")
INVITE_DAYS = 14
# Query parameters that carry a worker id, by marketplace, in the order they are looked for;
# a generic worker_id link names its marketplace in ``source`` ("link" when it does not).
MARKETPLACE_PARAMS = (("PROLIFIC_PID", "prolific"), ("workerId", "mturk"), ("worker_id", None))
LINK_SOURCE = "link"
MTURK_PREVIEW_ASSIGNMENT = "ASSIGNMENT_ID_NOT_AVAILABLE"


class AccountError(ValueError):
    """A request about accounts that is refused, with a message fit for the person who made it."""


def role_groups_sync() -> None:
    """Create the role groups with their permissions: admins may do everything in the platform
    and manage users; researchers may view everything and export; annotators need none."""
    managed_apps = ("annotation", "analysis")
    everything = Permission.objects.filter(content_type__app_label__in=managed_apps)
    users = Permission.objects.filter(content_type__app_label="auth", content_type__model__in=["user", "group"])
    admin_group, _ = Group.objects.get_or_create(name=Role.ADMIN)
    admin_group.permissions.set(list(everything) + list(users))
    researcher, _ = Group.objects.get_or_create(name=Role.RESEARCHER)
    researcher.permissions.set(everything.filter(codename__startswith="view_") | everything.filter(codename="export_annotations"))
    Group.objects.get_or_create(name=Role.ANNOTATOR)


def role_set(*, user: AbstractBaseUser, role: str) -> WorkerProfile:
    """Give a user a role: the profile field, the matching group, and staff access for admins
    and researchers (researchers get view and export permissions only, through their group)."""
    if role not in Role.values:
        raise AccountError(f"unknown role {role!r}; known roles: {', '.join(Role.values)}")
    profile, _ = WorkerProfile.objects.get_or_create(user=user)
    profile.role = role
    profile.save(update_fields=["role"])
    groups = {g.name: g for g in Group.objects.filter(name__in=Role.values)}
    user.groups.remove(*groups.values())
    if role in groups:
        user.groups.add(groups[role])
    user.is_staff = role in (Role.ADMIN, Role.RESEARCHER)
    user.save(update_fields=["is_staff"])
    return profile


def user_create(*, username: str, role: str = Role.ANNOTATOR, password: str | None = None,
                email: str = "", must_change_password: bool = False) -> AbstractBaseUser:
    user = User.objects.create_user(username=username, email=email, password=password)
    if password is None:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    profile = role_set(user=user, role=role)
    if must_change_password:
        profile.must_change_password = True
        profile.save(update_fields=["must_change_password"])
    return user


@dataclass(frozen=True)
class NewAccount:
    username: str
    password: str | None = None
    invite_token: str | None = None


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invite_create(*, user: AbstractBaseUser, project: Project | None = None) -> str:
    """Create a one-time invite and return its token; only the token's hash is stored."""
    token = secrets.token_urlsafe(24)
    Invite.objects.create(user=user, project=project, token_hash=_hash(token),
                          expires_at=timezone.now() + timedelta(days=INVITE_DAYS))
    return token


def annotators_create(*, names_text: str, mode: str, project: Project | None = None) -> list[NewAccount]:
    """Create annotator accounts from one name per line, all or nothing.

    ``mode`` is ``invite`` (a one-time link to set a password) or ``password`` (a generated
    one-time password that must be changed at first login). Returns what to hand out; it is
    shown once and not stored in clear.
    """
    if mode not in ("invite", "password"):
        raise AccountError("mode must be 'invite' or 'password'")
    errors, names, seen = [], [], {}
    for number, raw in enumerate(names_text.splitlines(), start=1):
        name = raw.strip()
        if not name:
            continue
        if not USERNAME_RE.match(name):
            errors.append(RowError(number, "name", f"{name!r} may only hold letters, digits and @ . + - _"))
        elif name.lower() in seen:
            errors.append(RowError(number, "name", f"{name!r} is repeated (first on line {seen[name.lower()]})"))
        else:
            seen[name.lower()] = number
            names.append((number, name))
    taken = set(
        User.objects.annotate(lower=Lower("username"))
        .filter(lower__in=[n.lower() for _, n in names])
        .values_list("lower", flat=True)
    )
    errors += [RowError(number, "name", f"{name!r} already has an account") for number, name in names if name.lower() in taken]
    if errors:
        raise ImportFailed(sorted(errors, key=lambda e: e.line or 0))
    if not names:
        raise ImportFailed([RowError(None, "name", "give at least one name, one per line")])
    created = []
    with transaction.atomic():
        for _, name in names:
            if mode == "password":
                password = secrets.token_urlsafe(9)
                user = user_create(username=name, password=password, must_change_password=True)
                created.append(NewAccount(username=name, password=password))
            else:
                user = user_create(username=name)
                created.append(NewAccount(username=name, invite_token=invite_create(user=user, project=project)))
            if project is not None:
                project.members.add(user)
    return created


def invite_accept(*, token: str, password: str) -> AbstractBaseUser:
    """Use an invite once: set the password and return the user (the caller logs them in)."""
    with transaction.atomic():
        invite = Invite.objects.select_for_update().select_related("user").filter(token_hash=_hash(token)).first()
        if invite is None or invite.used_at is not None:
            raise AccountError("This invite link is not valid or was already used.")
        if invite.expires_at <= timezone.now():
            raise AccountError("This invite link has expired; ask for a new one.")
        invite.user.set_password(password)
        invite.user.save(update_fields=["password"])
        invite.used_at = timezone.now()
        invite.save(update_fields=["used_at"])
        return invite.user


def invite_lookup(*, token: str) -> Invite | None:
    invite = Invite.objects.select_related("user").filter(token_hash=_hash(token)).first()
    if invite is None or invite.used_at is not None or invite.expires_at <= timezone.now():
        return None
    return invite


def password_changed(*, user: AbstractBaseUser) -> None:
    WorkerProfile.objects.filter(user=user).update(must_change_password=False)


def project_join(*, code: str, worker: AbstractBaseUser) -> Project:
    code = code.strip()
    project = Project.objects.filter(join_code=code).first() if code else None
    if project is None:
        raise AccountError("No project has this join code.")
    project.members.add(worker)
    return project


def marketplace_identity(params) -> tuple[str, str] | None:
    """(source, worker id) from a marketplace link's query parameters, if it carries one.

    Prolific and MTurk are known by their own parameters; ``source`` names the marketplace only
    for the generic ``worker_id`` link, so no link can pass a worker off as another's.
    """
    for param, source in MARKETPLACE_PARAMS:
        value = (params.get(param) or "").strip()
        if value:
            if source is None:
                source = (params.get("source") or LINK_SOURCE).strip().lower()[:40]
            return source, value
    return None


def is_mturk_preview(params) -> bool:
    """MTurk shows a HIT before the worker accepts it with this placeholder assignment id."""
    return params.get("assignmentId") == MTURK_PREVIEW_ASSIGNMENT


def marketplace_check(*, project: Project, source: str, external_id: str | None = None) -> None:
    """Refuse a link the project does not take: entry closed, unknown source, malformed id."""
    if not project.external_entry:
        raise AccountError("This project does not take workers from marketplace links.")
    allowed = project.allowed_sources
    if source not in allowed:
        accepted = ", ".join(allowed) if allowed else "none"
        raise AccountError(
            f"This project does not accept workers from “{source}” (it accepts: {accepted}). "
            "Please open the study again from the marketplace that sent you."
        )
    if external_id is not None and not EXTERNAL_ID_RE.match(external_id):
        raise AccountError("The worker id in the link is not valid.")


def marketplace_account(*, source: str, external_id: str) -> AbstractBaseUser | None:
    """The account already tied to a marketplace worker id, if any."""
    profile = WorkerProfile.objects.select_related("user").filter(source=source, external_id=external_id).first()
    return profile.user if profile else None


def marketplace_username(*, source: str, external_id: str) -> str:
    # "+" is in neither a source name nor a worker id, so two identities never share a name.
    return f"{source}+{external_id}"


def _marketplace_user_create(*, source: str, external_id: str) -> AbstractBaseUser:
    base = marketplace_username(source=source, external_id=external_id)
    for attempt in range(5):
        # Someone may already hold the name (an annotator created by hand, say): then a suffix.
        username = base if attempt == 0 else f"{base}+{secrets.token_hex(3)}"
        try:
            with transaction.atomic():
                user = user_create(username=username)
                WorkerProfile.objects.filter(user=user).update(source=source, external_id=external_id)
            return user
        except IntegrityError:
            # The same worker opened the link twice at once; the other request made the account.
            existing = marketplace_account(source=source, external_id=external_id)
            if existing is not None:
                return existing
    raise AccountError("No account could be created for this worker id; please open the link again.")


def worker_from_marketplace(*, project: Project, source: str, external_id: str) -> AbstractBaseUser:
    """The account tied to a marketplace worker id, created on first arrival."""
    marketplace_check(project=project, source=source, external_id=external_id)
    user = marketplace_account(source=source, external_id=external_id)
    if user is None:
        user = _marketplace_user_create(source=source, external_id=external_id)
    project.members.add(user)
    return user


def consent_accept(*, project: Project, worker: AbstractBaseUser, now=None) -> Consent:
    """Record that the worker accepted the project's welcome and consent text (once; the first
    acceptance and the text it was given to stay on record)."""
    consent, _ = Consent.objects.get_or_create(
        project=project, worker=worker,
        defaults={"text": project.consent_text, "accepted_at": now or timezone.now()},
    )
    return consent
