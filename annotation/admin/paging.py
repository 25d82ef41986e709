"""Paging of the admin's lists of tables that grow to millions of rows (assignments,
annotations, items): counting every matching row on each page view would take seconds."""

from __future__ import annotations

from functools import cached_property
from typing import cast

from django.core.paginator import Paginator
from django.db import connections
from django.db.models import QuerySet

# Up to this many matching rows the admin shows the exact count.
EXACT_COUNT_LIMIT = 100_000


class LargeTablePaginator(Paginator):
    """Counts exactly up to ``EXACT_COUNT_LIMIT`` rows (a count that stops there); past it, on
    PostgreSQL, takes the query planner's estimate of the rows, and elsewhere the limit."""

    @cached_property
    def count(self) -> int:
        # The admin pages its change lists' querysets with this paginator, nothing else.
        queryset = cast(QuerySet, self.object_list)
        capped = queryset.order_by().values("pk")[: EXACT_COUNT_LIMIT + 1].count()
        if capped <= EXACT_COUNT_LIMIT:
            return capped
        return max(_estimate(queryset), capped)


def _estimate(queryset) -> int:
    connection = connections[queryset.db]
    # A row estimate without counting is PostgreSQL's planner's (EXPLAIN); SQLite has none.
    if connection.vendor != "postgresql":
        return 0
    sql, params = queryset.order_by().query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    if isinstance(plan, str):
        import json

        plan = json.loads(plan)
    return int(plan[0]["Plan"]["Plan Rows"])
