"""The registry of recruiting providers: the panels register from their app, an unknown key names
the known ones, the choices of a project's panel come from it, and a project without a panel has
no provider to ask."""

import pytest

from annotation.providers import (
    NO_PANEL,
    UnknownProvider,
    provider_choices,
    provider_get,
    provider_of,
    providers,
)
from tests.factories import ProjectFactory
from tests.recruiting.fake_panel import fake_panel  # noqa: F401


def test_the_panels_register_from_the_recruiting_app():
    assert {"prolific", "mturk", "cloudresearch", "sona", "custom"} <= {p.key for p in providers()}


def test_an_unknown_key_names_the_known_ones():
    with pytest.raises(UnknownProvider) as raised:
        provider_get("nowhere")
    message = str(raised.value)
    assert "nowhere" in message and all(p.key in message for p in providers())


def test_the_panel_choices_hold_a_registered_provider(fake_panel):  # noqa: F811
    from annotation.models import Project

    assert ("fakepanel", "Fake panel") in provider_choices()
    assert ("fakepanel", "Fake panel") in Project._meta.get_field("panel").choices


def test_a_project_without_a_panel_has_no_provider():
    project = ProjectFactory.build(panel=NO_PANEL)
    assert provider_of(project) is None
    assert provider_of(ProjectFactory.build(panel="prolific")).key == "prolific"
