"""The running evidence of the per-answer rules (``RuleState``), moved by each judged answer
in one statement that adds to the worker's states and returns them (``rule_states_add``).

Judging runs on every submit, so this is written in SQL rather than through the ORM: one
``UPDATE … RETURNING`` adds each rule's increments (a ``CASE`` on the rule) to the worker's
rows and hands back their new counts, with no read before it and no model rows built; the
rows it did not find (a worker's first answer a rule judges) are made by one
``INSERT … ON CONFLICT DO UPDATE``, which adds instead should another answer of the same worker
have made the row meanwhile. Each statement is atomic on its own: two answers of one worker
never lose each other's counts. SQLite (3.35 or later) and PostgreSQL both speak it.

Hand-written because the ORM's version (``rule_states_add_orm``: a transaction of an UPDATE
with CASE expressions and a read back) costs more than the judging's budget of 1 ms of CPU per
submit: with four rules, PostgreSQL, ``bench/quality/rules_per_answer.py --workers 15 [--orm]``
measured +0.984 ms per submit with these statements against +6.245 ms through the ORM.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import cache
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Case, F, FloatField, IntegerField, Value, When

from quality.models import RuleState

# A state as judging reads it: (rule id, answers, hits, log-likelihood ratio).
Counts = tuple[int, int, int, float]


def _columns() -> dict[str, str]:
    quote = connection.ops.quote_name
    return {"table": quote(RuleState._meta.db_table),
            **{field.name: quote(field.column or field.name) for field in RuleState._meta.concrete_fields}}


@cache
def _update_sql(rules: int) -> str:
    c = _columns()
    cases = " ".join(["WHEN %s THEN %s"] * rules)
    returned = f"{c['rule']}, {c['answers']}, {c['hits']}, {c['llr']}"
    return (f"UPDATE {c['table']} SET {c['answers']} = {c['answers']} + 1, "
            f"{c['hits']} = {c['hits']} + CASE {c['rule']} {cases} ELSE 0 END, "
            f"{c['llr']} = {c['llr']} + CASE {c['rule']} {cases} ELSE 0.0 END, {c['updated_at']} = %s "
            f"WHERE {c['worker']} = %s AND {c['rule']} IN ({', '.join(['%s'] * rules)}) RETURNING {returned}")


@cache
def _insert_sql(rules: int) -> str:
    c = _columns()
    added = ", ".join(f"{c[n]} = {c['table']}.{c[n]} + excluded.{c[n]}" for n in ("answers", "hits", "llr"))
    return (f"INSERT INTO {c['table']} ({c['rule']}, {c['worker']}, {c['answers']}, {c['hits']}, {c['llr']}, "
            f"{c['updated_at']}) VALUES {', '.join(['(%s, %s, 1, %s, %s, %s)'] * rules)} "
            f"ON CONFLICT ({c['rule']}, {c['worker']}) DO UPDATE SET {added}, {c['updated_at']} = excluded.{c['updated_at']} "
            f"RETURNING {c['rule']}, {c['answers']}, {c['hits']}, {c['llr']}")


def rule_states_add(*, worker_id: int, added: Sequence[tuple[int, int, float]], now: datetime) -> list[Counts]:
    """Add one answer, with its hits and ratio, to the worker's state of each rule in ``added``
    (rule id, hits, ratio), making the states that do not exist yet; the states after it."""
    stamp = connection.ops.adapt_datetimefield_value(now)
    params: list[Any] = [v for rule_id, hits, _ in added for v in (rule_id, hits)]
    params += [v for rule_id, _, llr in added for v in (rule_id, llr)]
    params += [stamp, worker_id, *(rule_id for rule_id, _, _ in added)]
    with connection.cursor() as cursor:
        cursor.execute(_update_sql(len(added)), params)
        states: list[Counts] = [(int(r), int(a), int(h), float(x)) for r, a, h, x in cursor.fetchall()]
        if len(states) < len(added):
            moved = {state[0] for state in states}
            new = [step for step in added if step[0] not in moved]
            cursor.execute(_insert_sql(len(new)),
                           [v for rule_id, hits, llr in new for v in (rule_id, worker_id, hits, llr, stamp)])
            states += [(int(r), int(a), int(h), float(x)) for r, a, h, x in cursor.fetchall()]
    return states


def rule_states_locked(*, worker_id: int, rule_ids: Iterable[int]) -> list[Counts]:
    """The worker's states of these rules, locked until the transaction ends."""
    return list(RuleState.objects.select_for_update().filter(worker_id=worker_id, rule_id__in=list(rule_ids))
                .order_by("rule_id").values_list("rule_id", "answers", "hits", "llr"))


def rule_states_add_orm(*, worker_id: int, added: Sequence[tuple[int, int, float]], now: datetime) -> list[Counts]:
    """``rule_states_add`` through the ORM, the yardstick of the hand-written statements: the
    same rows and counts (a test compares them), in a transaction of an UPDATE and a read back
    (and a made row for each missing state). ``bench/quality/rules_per_answer.py --orm``
    measures it in their place."""
    ids = [rule_id for rule_id, _, _ in added]
    hits = Case(*[When(rule_id=rule_id, then=Value(h)) for rule_id, h, _ in added], default=Value(0),
                output_field=IntegerField())
    llr = Case(*[When(rule_id=rule_id, then=Value(x)) for rule_id, _, x in added], default=Value(0.0),
               output_field=FloatField())
    with transaction.atomic():
        RuleState.objects.filter(worker_id=worker_id, rule_id__in=ids).update(
            answers=F("answers") + 1, hits=F("hits") + hits, llr=F("llr") + llr, updated_at=now)
        states = list(RuleState.objects.filter(worker_id=worker_id, rule_id__in=ids)
                      .values_list("rule_id", "answers", "hits", "llr"))
        moved = {state[0] for state in states}
        for rule_id, h, x in added:
            if rule_id in moved:
                continue
            try:
                with transaction.atomic():
                    RuleState.objects.create(rule_id=rule_id, worker_id=worker_id, answers=1, hits=h, llr=x,
                                             updated_at=now)
                states.append((rule_id, 1, h, x))
            except IntegrityError:  # another answer of the worker made it meanwhile
                RuleState.objects.filter(worker_id=worker_id, rule_id=rule_id).update(
                    answers=F("answers") + 1, hits=F("hits") + h, llr=F("llr") + x, updated_at=now)
                states += RuleState.objects.filter(worker_id=worker_id, rule_id=rule_id) \
                    .values_list("rule_id", "answers", "hits", "llr")
    return states
