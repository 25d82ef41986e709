"""Adding questions to a project: a seeded sample, the build_counter_speech command and the
admin's "Build questions" page, all from the IBM Debater speeches."""

import io

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from task_types.counter_speech.corpus import sample_questions
from tests.factories import ProjectFactory, UserFactory


def test_a_seeded_sample_in_id_order():
    records = [{"id": f"q{n:02d}"} for n in range(100)]
    first = sample_questions(records, n=60, seed=1)
    assert len(first) == 60 and [r["id"] for r in first] == sorted(r["id"] for r in first)
    assert first == sample_questions(list(reversed(records)), n=60, seed=1)  # the input order does not matter
    assert first != sample_questions(records, n=60, seed=2)
    assert sample_questions(records, n=None, seed=1) == records == sample_questions(records, n=500, seed=1)
    with pytest.raises(ValueError, match="at least 1"):
        sample_questions(records, n=0, seed=1)


@pytest.mark.django_db
@pytest.mark.shared_data
def test_the_command_adds_a_sample_once(shared_data, settings):
    settings.SHARED_DATA_DIR = shared_data
    project = ProjectFactory(task_type="counter_speech")
    call_command("build_counter_speech", project.slug, "--min-candidates", "2", "--sample", "60", "--seed", "7")
    ids = set(project.items.values_list("external_id", flat=True))
    assert len(ids) == 60
    call_command("build_counter_speech", project.slug, "--min-candidates", "2", "--sample", "60", "--seed", "7")
    assert set(project.items.values_list("external_id", flat=True)) == ids
    other = ProjectFactory(task_type="counter_speech")
    call_command("build_counter_speech", other.slug, "--min-candidates", "2", "--sample", "60", "--seed", "8")
    assert set(other.items.values_list("external_id", flat=True)) != ids
    # The release's motions have two opposing speeches: with the paper's 3 candidates nothing is
    # built, and the command says which minimum builds questions.
    out = io.StringIO()
    call_command("build_counter_speech", other.slug, "--seed", "8", stdout=out)
    assert other.items.count() == 60
    assert "To build questions, set --min-candidates to 2 to build 78 questions" in out.getvalue()
    with pytest.raises(CommandError, match="not counter-speech"):
        call_command("build_counter_speech", ProjectFactory().slug)
    with pytest.raises(CommandError, match="speech-transcripts.csv"):
        call_command("build_counter_speech", project.slug, "--ibm", str(shared_data / "missing"))


@pytest.mark.django_db
@pytest.mark.shared_data
def test_the_admin_page_builds_questions(shared_data, settings, client, django_capture_on_commit_callbacks):
    settings.SHARED_DATA_DIR = shared_data
    project = ProjectFactory(task_type="counter_speech")
    client.force_login(UserFactory(role="admin", is_superuser=True))
    url = reverse("admin:annotation_project_counter_speech", args=[project.pk])
    assert url in client.get(reverse("admin:annotation_project_change", args=[project.pk])).content.decode()
    assert client.get(url).status_code == 200

    def build(**form):
        """The page queues an import job (run here at once); its page shows the outcome."""
        with django_capture_on_commit_callbacks(execute=True):
            r = client.post(url, {"setting": "all", "max_candidates": 5, "seed": 1, **form})
        assert r.status_code == 302 and "/imports/" in r["Location"]
        return " ".join(client.get(r["Location"]).content.decode().split())

    page = build(min_candidates=2, sample=10)
    assert project.items.count() == 10 and "10 new" in page
    # With the paper's 3 candidates the release builds nothing, and the job's page says why …
    page = build(min_candidates=3, sample="")
    assert "no question was built: 0 questions" in page and "left out" in page and project.items.count() == 10
    # … and which setting gives questions, measured on the release.
    assert "To build questions, set “Minimum candidates” to 2 to build 78 questions" in page
    page = build(min_candidates=3, max_candidates=2, sample="")
    assert "Nothing was imported" in page and project.items.count() == 10
