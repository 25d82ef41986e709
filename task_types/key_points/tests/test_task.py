"""The key-point HIT's answer rules (None is exclusive, on the server) and the label thresholds
on a hand-computed example."""

from __future__ import annotations

import pandas as pd
import pytest
from django.utils import timezone

from annotation.models import Annotation, Assignment
from annotation.task_types import get_task_type
from annotation.task_types.base import AnswerInvalid
from task_types.key_points.corpus import read_corpus
from task_types.key_points.labels import derive_labels, label_of, match_shares
from task_types.key_points.services import corpus_import
from task_types.key_points.tests.test_corpus import ARGUMENTS, KEY_POINTS
from tests.factories import ProjectFactory, UserFactory

TASK = get_task_type("key_points")
PAYLOAD = TASK.clean_item(TASK.example().records[0]).payload


def test_none_goes_alone():
    with pytest.raises(AnswerInvalid) as refused:
        TASK.clean_answer({"key_points": ["kp_4_1", "none"]}, payload=PAYLOAD)
    assert refused.value.errors["key_points"] == "None cannot go with key points: unmark None or the key points."
    assert TASK.clean_answer({"key_points": ["none"]}, payload=PAYLOAD).answer == {"key_points": [], "none": True}


def test_an_empty_answer_and_unknown_ids_are_refused_and_marks_keep_the_items_order():
    with pytest.raises(AnswerInvalid):
        TASK.clean_answer({"key_points": []}, payload=PAYLOAD)
    with pytest.raises(AnswerInvalid) as refused:
        TASK.clean_answer({"key_points": ["kp_9"]}, payload=PAYLOAD)
    assert "kp_9" in refused.value.errors["key_points"]
    answer = TASK.clean_answer({"key_points": ["kp_4_3", "kp_4_1"]}, payload=PAYLOAD).answer
    assert answer == {"key_points": ["kp_4_1", "kp_4_3"], "none": False}
    assert TASK.long_rows(payload=PAYLOAD, answer=answer) == [{"option": "kp_4_1", "label": 1},
                                                              {"option": "kp_4_3", "label": 1}]


@pytest.mark.django_db
def test_the_server_refuses_none_with_a_key_point_through_the_api(client):
    project = ProjectFactory(task_type="key_points")
    corpus_import(project=project, corpus=read_corpus(ARGUMENTS, KEY_POINTS))
    worker = UserFactory()
    project.members.add(worker)
    client.force_login(worker)
    item = project.items.get(external_id="a1")
    now = timezone.now()
    assignment = Assignment.objects.create(item=item, project=project, worker=worker, assigned_at=now,
                                           expires_at=now + timezone.timedelta(minutes=30))
    item.n_active += 1
    item.save(update_fields=["n_active"])
    response = client.post(f"/api/assignments/{assignment.pk}/submit/", {"key_points": ["k1", "none"]},
                           content_type="application/json")
    assert response.status_code == 400 and "None cannot go with key points" in response.content.decode()
    assert not Annotation.objects.filter(assignment=assignment).exists()


def test_the_thresholds_on_a_hand_computed_example():
    # Five annotators on pairs (a1, k1) … : 3 of 5 = 0.6 → 1; 2 of 5 = 0.4 → ambiguous;
    # 1 of 7 ≈ 0.143 → 0; 1 of 6 ≈ 0.167 → ambiguous; 0 of 5 → 0; 5 of 5 → 1.
    marks = {("a1", "k1"): (3, 5), ("a1", "k2"): (2, 5), ("a2", "k1"): (1, 7), ("a2", "k2"): (1, 6),
             ("a3", "k1"): (0, 5), ("a3", "k2"): (5, 5)}
    rows = [{"item": a, "option": k, "worker": f"w{n}", "label": int(n < votes)}
            for (a, k), (votes, annotators) in marks.items() for n in range(annotators)]
    labels = derive_labels(match_shares(pd.DataFrame(rows)), positive=0.6, negative=0.15)
    got = {(r.arg_id, r.key_point_id): (None if pd.isna(r.label) else int(r.label)) for r in labels.itertuples()}
    assert got == {("a1", "k1"): 1, ("a1", "k2"): None, ("a2", "k1"): 0, ("a2", "k2"): None,
                   ("a3", "k1"): 0, ("a3", "k2"): 1}
    # The same pairs with other thresholds (project options): 0.4 is enough for 1, 1/6 is 0.
    looser = derive_labels(match_shares(pd.DataFrame(rows)), positive=0.4, negative=0.2)
    assert looser["label"].tolist() == [1, 1, 0, 0, 0, 1]
    assert label_of(0.15, positive=0.6, negative=0.15) == 0 and label_of(0.59, positive=0.6, negative=0.15) is None


def test_the_options_refuse_crossed_thresholds():
    assert TASK.clean_options({}) == {"positive_share": 0.6, "negative_share": 0.15}
    with pytest.raises(ValueError, match="must be below"):
        TASK.clean_options({"positive_share": 0.3, "negative_share": 0.5})
