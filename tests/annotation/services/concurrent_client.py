"""A separate process that plays several workers against the database at once.

Run by test_concurrency with DATABASE_URL pointing at the test database; prints one JSON object:
the annotation ids each worker got back, and any error.
"""

import json
import os
import random
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402

from annotation.models import Project  # noqa: E402
from annotation.services import annotation_submit, assignment_next, assignment_return  # noqa: E402

REASON = "A1 gives a concrete example, A2 only repeats its claim."


def play(project, worker, out, errors, seed):
    rng = random.Random(seed)
    try:
        while True:
            result = assignment_next(project=project, worker=worker)
            if result.assignment is None:
                break
            if rng.random() < 0.1:
                assignment_return(assignment=result.assignment, worker=worker)
                continue
            data = {"label": rng.choice(["a1", "a2", "equal"]), "standpoint": "none", "reason": REASON}
            first = annotation_submit(assignment=result.assignment, worker=worker, data=data)
            if rng.random() < 0.3:
                again = annotation_submit(assignment=result.assignment, worker=worker, data=data)
                assert not again.created and again.annotation.pk == first.annotation.pk
            out.setdefault(worker.username, []).append(first.annotation.pk)
    except Exception as exc:  # reported to the test, which fails on it
        errors.append(f"{worker.username}: {type(exc).__name__}: {exc}")
    finally:
        connection.close()


def main() -> None:
    slug, usernames = sys.argv[1], sys.argv[2].split(",")
    project = Project.objects.get(slug=slug)
    users = list(get_user_model().objects.filter(username__in=usernames))
    out, errors = {}, []
    threads = [threading.Thread(target=play, args=(project, u, out, errors, u.pk)) for u in users]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"annotations": out, "errors": errors}))


if __name__ == "__main__":
    main()
