"""Writes about people: roles, annotator accounts, invites, join codes."""

from __future__ import annotations

import hashlib
import re
import secrets
import sys
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission, User
from django.db import transaction
from django.db.models import ProtectedError
from django.db.models.functions import Lower
from django.utils import timezone

from annotation.importers import ImportFailed, RowError
from annotation.models import Invite, Project, WorkerProfile
from annotation.services.audit import audit_record
from annotation.services.errors import WorkflowError

UserModel = get_user_model()
Role = WorkerProfile.Role

USERNAME_RE = re.compile(r"^[\w.@+-]{1,150}$")
INVITE_DAYS = 14


class AccountError(ValueError):
    """A request about accounts that is refused, with a message fit for the person who made it."""


def _platform_app(path: Path) -> bool:
    """Whether an app is the platform's own: in its folder, not an installed library (a
    virtualenv may lie in the folder too)."""
    found = path.resolve()
    return (found.is_relative_to(Path(settings.BASE_DIR).resolve()) and not found.is_relative_to(Path(sys.prefix).resolve())
            and "site-packages" not in found.parts)


def role_groups_sync() -> None:
    """Create the role groups with their permissions: admins may do everything in the platform
    and manage users; researchers may view everything and export; annotators need none. The
    platform is every app of its own (those in its folder: the engine, analysis, quality control
    and the task types, whose models, e.g. the pairwise argument corpus, staff manage like the
    others), not the libraries'."""
    managed_apps = sorted(app.label for app in apps.get_app_configs() if _platform_app(Path(app.path)))
    everything = Permission.objects.filter(content_type__app_label__in=managed_apps)
    users = Permission.objects.filter(content_type__app_label="auth", content_type__model__in=["user", "group"])
    admin_group, _ = Group.objects.get_or_create(name=Role.ADMIN)
    admin_group.permissions.set(list(everything) + list(users))
    researcher, _ = Group.objects.get_or_create(name=Role.RESEARCHER)
    researcher.permissions.set(everything.filter(codename__startswith="view_") | everything.filter(codename="export_annotations"))
    Group.objects.get_or_create(name=Role.ANNOTATOR)


def role_set(*, user: User, role: str) -> WorkerProfile:
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
                email: str = "", must_change_password: bool = False, actor: User | None = None,
                via: str = "", project: Project | None = None) -> User:
    """A new account with its role, recorded in the audit log (``actor`` None: the platform,
    e.g. a marketplace arrival; ``via`` says which path made it)."""
    with transaction.atomic():
        user = UserModel.objects.create_user(username=username, email=email, password=password)
        if password is None:
            user.set_unusable_password()
            user.save(update_fields=["password"])
        profile = role_set(user=user, role=role)
        if must_change_password:
            profile.must_change_password = True
            profile.save(update_fields=["must_change_password"])
        account_created_record(user=user, actor=actor, via=via, project=project)
    return user


def account_created_record(*, user: User, actor: User | None, via: str = "", project: Project | None = None) -> None:
    """Record a new account (the user admin's add form saves the row itself)."""
    role = getattr(getattr(user, "profile", None), "role", "")
    audit_record(actor=actor, action="account_create", project=project, target=f"user {user.get_username()}",
                 details={"user": user.pk, "role": role, "via": via,
                          "one_time_password": bool(getattr(getattr(user, "profile", None), "must_change_password", False))})


def account_delete(*, user: User, actor: User | None) -> None:
    """Delete an account, recording the deletion first: the entries it wrote keep its name
    (``AuditEntry.actor_name``) and the log says who deleted it."""
    with transaction.atomic():
        role = getattr(getattr(user, "profile", None), "role", "")
        audit_record(actor=actor, action="account_delete", target=f"user {user.get_username()}",
                     details={"user": user.pk, "role": role, "staff": user.is_staff})
        try:
            user.delete()
        except ProtectedError as exc:
            # Assignments and bonuses keep their worker (the data and the ledger name them):
            # nothing is deleted, the audit entry above included.
            kept = sorted({str(type(obj)._meta.verbose_name_plural) for obj in exc.protected_objects})
            raise WorkflowError(f"the account {user.get_username()} keeps its {' and '.join(kept)}, which name it: "
                                "it cannot be deleted; block it instead") from None


@dataclass(frozen=True)
class NewAccount:
    username: str
    password: str | None = None
    invite_token: str | None = None
    # The name already had an account: it was made a member of the project, nothing to hand out.
    existing: bool = False


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invite_create(*, user: User, project: Project | None = None) -> str:
    """Create a one-time invite and return its token; only the token's hash is stored."""
    token = secrets.token_urlsafe(24)
    Invite.objects.create(user=user, project=project, token_hash=_hash(token),
                          expires_at=timezone.now() + timedelta(days=INVITE_DAYS))
    return token


def annotators_create(*, names_text: str, mode: str, project: Project | None = None,
                      actor: User | None = None) -> list[NewAccount]:
    """Create annotator accounts from one name per line, all or nothing.

    ``mode`` is ``invite`` (a one-time link to set a password) or ``password`` (a generated
    one-time password that must be changed at first login). Returns what to hand out; it is
    shown once and not stored in clear. A name that already has an account (in any case) is
    made a member of ``project`` as it is, keeping its password; without a project it is an
    error, since there is nothing to do for it.
    """
    if mode not in ("invite", "password"):
        raise AccountError("mode must be 'invite' or 'password'")
    errors: list[RowError] = []
    names: list[tuple[int, str]] = []
    seen: dict[str, int] = {}  # lower-cased name -> its first line
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
    taken: dict[str, User] = {
        user.username.lower(): user
        for user in UserModel.objects.annotate(lower=Lower("username")).filter(lower__in=[n.lower() for _, n in names])
    }
    if project is None:
        errors += [RowError(number, "name", f"{name!r} already has an account")
                   for number, name in names if name.lower() in taken]
    if errors:
        raise ImportFailed(sorted(errors, key=lambda e: e.line or 0))
    if not names:
        raise ImportFailed([RowError(None, "name", "give at least one name, one per line")])
    created = []
    with transaction.atomic():
        for _, name in names:
            known = taken.get(name.lower())
            if known is not None and project is not None:
                project.members.add(known)
                created.append(NewAccount(username=known.username, existing=True))
                continue
            if mode == "password":
                password = secrets.token_urlsafe(9)
                user = user_create(username=name, password=password, must_change_password=True, actor=actor,
                                   via="annotators", project=project)
                created.append(NewAccount(username=name, password=password))
            else:
                user = user_create(username=name, actor=actor, via="annotators", project=project)
                created.append(NewAccount(username=name, invite_token=invite_create(user=user, project=project)))
            if project is not None:
                project.members.add(user)
    return created


def invite_accept(*, token: str, password: str) -> User:
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


def password_changed(*, user: User) -> None:
    WorkerProfile.objects.filter(user=user).update(must_change_password=False)


def project_join(*, code: str, worker: User) -> Project:
    """Make the worker a member of the project whose join code they typed, in any case (the
    database keeps join codes unique regardless of case)."""
    code = code.strip()
    project = (Project.objects.annotate(code_lower=Lower("join_code")).filter(code_lower=code.lower()).first()
               if code else None)
    if project is None:
        raise AccountError("No project has this join code.")
    project.members.add(worker)
    return project


