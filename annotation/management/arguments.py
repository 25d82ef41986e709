"""Argument types shared by the management commands: a bad value stops the command with a
message naming it."""

from argparse import ArgumentTypeError
from pathlib import Path

from annotation.models import Project


def existing_project(slug: str) -> Project:
    project = Project.objects.filter(slug=slug).first()
    if project is None:
        raise ArgumentTypeError(f"no project with slug {slug!r}")
    return project


def existing_file(value: str) -> Path:
    path = Path(value)
    if not path.is_file():
        raise ArgumentTypeError(f"no such file: {path}")
    return path
