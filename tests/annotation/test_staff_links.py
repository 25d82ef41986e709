"""Links other apps add to the staff overview: registered once each, in the order registered,
and analysis's report pages among them without the engine importing analysis."""

import pytest

from annotation import staff_links as module
from annotation.staff_links import staff_links, staff_links_register
from tests.factories import ProjectFactory


@pytest.fixture
def providers(monkeypatch):
    monkeypatch.setattr(module, "_PROVIDERS", [])
    return module._PROVIDERS


def test_links_come_from_every_provider_in_the_order_they_registered(providers):
    project = ProjectFactory.build(slug="p")
    first = staff_links_register(lambda p: [(f"/{p.slug}/a/", "A"), (f"/{p.slug}/b/", "B")])
    staff_links_register(lambda p: [(f"/{p.slug}/c/", "C")])
    staff_links_register(first)
    assert staff_links(project=project)[:3] == [("/p/a/", "A"), ("/p/b/", "B"), ("/p/c/", "C")]


@pytest.mark.django_db
def test_analysis_adds_the_report_pages_of_the_projects_type():
    from analysis.apps import report_links

    project = ProjectFactory(slug="links")
    assert report_links in module._PROVIDERS
    assert staff_links(project=project)[0] == ("/projects/links/analysis/", "Agreement and workers")
