"""What a pairwise item import says about a file it takes: a gold explanation naming a side "A1"
or "A2" is a warning where the sides are drawn per worker (not where the project keeps the import
order), and a real item carrying the `gold` column is told to stay a real item."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from annotation.models import Item, ItemKind
from annotation.services.imports import import_upload
from tests.factories import ProjectFactory

pytestmark = pytest.mark.django_db

HEADER = "id,topic,prompt,stance,arg1_id,arg1_text,arg2_id,arg2_text,gold,item_kind,gold_answer,gold_explanation\n"


def row(n: int, *, gold: str = "", kind: str = "", explanation: str = "") -> str:
    answer = '"{""label"": ""a1""}"' if kind else ""
    return f"p{n},t,Prompt,yes,a{n},first text,b{n},second text,{gold},{kind},{answer},{explanation}\n"


def imported(project, text: str) -> dict:
    outcome = import_upload(project=project, kind="items", upload=SimpleUploadedFile("pairs.csv", text.encode()),
                            options={})
    assert outcome.result is not None
    return outcome.result


@pytest.mark.parametrize("explanation", ["A2 gives no reason", "the reason in a1 is weak", "(A1) is vaguer"])
def test_an_explanation_naming_a_side_by_its_place_is_a_warning_where_sides_are_drawn(explanation):
    project = ProjectFactory(task_type="pairwise")
    result = imported(project, HEADER + row(1, kind="gold", explanation=explanation) + row(2))
    assert result["created"] == 2 and Item.objects.get(external_id="p1").kind == ItemKind.GOLD
    [note] = result["warnings"]
    assert note.startswith("1 gold or training explanation names an option by its place (A1, A2) (line 2)")
    assert "name them by their content" in note


@pytest.mark.parametrize("explanation", ["The first argument gives no reason", "A12 is a code and SA1 too", "a1b2"])
def test_explanations_that_name_sides_by_content_pass_quietly(explanation):
    project = ProjectFactory(task_type="pairwise")
    assert "warnings" not in imported(project, HEADER + row(1, kind="gold", explanation=explanation))


def test_where_the_project_keeps_the_import_order_a1_means_the_left_side():
    project = ProjectFactory(task_type="pairwise", keep_import_order=True)
    assert "warnings" not in imported(project, HEADER + row(1, kind="training", explanation="A2 gives no reason"))


def test_a_gold_column_without_item_kind_is_kept_and_said_to_make_no_gold_question():
    project = ProjectFactory(task_type="pairwise")
    result = imported(project, HEADER + row(1, gold="a1") + row(2, gold="a2") + row(3))
    assert result["warnings"] == [
        "2 real items carry a `gold` value: it is kept with the item for the analyses and exports, and they stay "
        "real items. A gold question needs item_kind gold and a gold_answer."]
    assert list(Item.objects.order_by("external_id").values_list("kind", "gold")) == [
        ("real", "a1"), ("real", "a2"), ("real", None)]


def test_the_notes_reach_the_api_answer(client):
    from tests.factories import UserFactory

    project = ProjectFactory(task_type="pairwise")
    client.force_login(UserFactory(role="admin"))
    upload = SimpleUploadedFile("pairs.csv", (HEADER + row(1, kind="gold", explanation="A1 is vaguer")).encode())
    body = client.post(f"/api/projects/{project.slug}/items/import/", {"file": upload}).json()
    assert body["created"] == 1 and "(A1, A2)" in body["warnings"][0]
