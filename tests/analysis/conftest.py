import pytest

from annotation.services import annotation_submit, assignment_next
from tests.factories import ItemFactory, ProjectFactory, UserFactory
from tests.task_types.pairwise.factories import answer


@pytest.fixture
def annotated_project(db):
    """A project with 6 items, each answered by 3 of 4 workers."""
    project = ProjectFactory(slug="annotated", redundancy=3)
    ItemFactory.create_batch(6, project=project)
    choices = {"w0": "a1", "w1": "a1", "w2": "a2", "w3": "equal"}
    for _ in range(6):
        for name, label in choices.items():
            worker = UserFactory._meta.model.objects.filter(username=name).first() or UserFactory(username=name)
            a = assignment_next(project=project, worker=worker).assignment
            if a is not None:
                annotation_submit(assignment=a, worker=worker, data=answer(label), client={"elapsed_ms": 3000})
    return project
