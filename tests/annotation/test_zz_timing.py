import time
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from annotation.models import CHECK_ITEM_REDUNDANCY, Assignment, Item, ItemKind
from annotation.services import assignment_next
from annotation.services.engine import set_status
from tests.factories import ProjectFactory, UserFactory
from tests.quality_factories import quality_policy

pytestmark = pytest.mark.django_db
HAS_GROUP = any(f.name == "group" for f in Item._meta.fields)


@pytest.mark.parametrize("order", ["sequential", "spread", "random"])
def test_timing(order):
    p = ProjectFactory(redundancy=3, assignment_order=order)
    quality_policy(p, gold_rate=0.1)
    rows, pos = [], 0
    for g in range(20):
        for k in range(100):
            pos += 1
            payload = {"topic": f"t{g}", "prompt": "P", "stance": "s", "arg1": {"id": f"a{pos}", "text": "x"},
                       "arg2": {"id": f"b{pos}", "text": "y"}}
            gold = k % 10 == 5
            extra = {"group": f"t{g}"} if HAS_GROUP else {}
            rows.append(Item(project=p, external_id=f"i{pos}", payload=payload, position=pos, kind="gold" if gold else "real",
                             redundancy=CHECK_ITEM_REDUNDANCY if gold else 3, **extra))
    Item.objects.bulk_create(rows)
    workers = [UserFactory() for _ in range(4)]
    for w in workers:  # warm up
        a = assignment_next(project=p, worker=w).assignment
        set_status(assignments=[a], new="submitted", now=a.assigned_at)
    cpu, n, q = 0.0, 0, 0
    for _ in range(75):
        for w in workers:
            with CaptureQueriesContext(connection) as c:
                t = time.process_time()
                a = assignment_next(project=p, worker=w).assignment
                cpu += time.process_time() - t
            q += len(c)
            n += 1
            set_status(assignments=[a], new="submitted", now=a.assigned_at)
    print(f"TIMING {order} serves={n} cpu_ms_per_serve={cpu / n * 1000:.2f} queries_per_serve={q / n:.2f}")
