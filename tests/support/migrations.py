"""Testing a data migration: the database is taken back to just before it, the test writes rows
through the models as they were then, the migration runs, and the test reads the rows through
the models as they are after it. Whatever happens, the database ends at the latest migrations,
as every other test expects it.

A migration is found by the end of its name, the part after its number (``"_item_group"`` finds
``0024_item_group``): migrations of an app are renumbered when branches merge, and the name
stays. Exactly one migration of the app must match.

    with data_migration("annotation", "_item_group") as step:
        old = step.before()          # the apps just before it
        old.get_model("annotation", "Item").objects.create(...)
        new = step.after()           # the apps just after it
        assert new.get_model("annotation", "Item").objects.get(...).group == ...

Tests that use it need ``pytest.mark.django_db(transaction=True)``: migrations change the schema.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from django.apps.registry import Apps
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

Key = tuple[str, str]
Target = tuple[str, str | None]


def _executor() -> MigrationExecutor:
    """An executor that reads what is applied now (each migrate changes that)."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    return executor


def migration_named(*, app: str, suffix: str, executor: MigrationExecutor | None = None) -> Key:
    """The app's one migration whose name, after its number, is ``suffix`` (a leading ``_`` or
    not): ``("annotation", "0024_item_group")`` for ``"_item_group"``."""
    graph = (executor or _executor()).loader.graph
    pattern = re.compile(r"\d+_" + re.escape(suffix.lstrip("_")))
    found = sorted(key for key in graph.nodes if key[0] == app and pattern.fullmatch(key[1]))
    assert len(found) == 1, f"{app} has {len(found)} migrations named …_{suffix.lstrip('_')}: {found}"
    return found[0]


class DataMigration:
    """One migration of an app, run from just before it (see the module)."""

    def __init__(self, app: str, suffix: str) -> None:
        executor = _executor()
        self.target: Key = migration_named(app=app, suffix=suffix, executor=executor)
        parents = executor.loader.graph.node_map[self.target].parents
        # Its predecessor in its own app; the other apps' migrations it needs stay applied.
        self.parent: Key = next(p.key for p in parents if p.key[0] == app)

    def _migrate(self, targets: Sequence[Target]) -> Apps:
        _executor().migrate(list(targets))
        # The models as the database now holds them: the state of every migration applied.
        executor = _executor()
        return executor.loader.project_state(list(executor.loader.applied_migrations)).apps

    def before(self, *, also: Sequence[Target] = ()) -> Apps:
        """Migrate back to just before the migration (and to ``also``, e.g. ``("pairwise",
        None)`` to unapply another app as well); the apps as they were."""
        return self._migrate([self.parent, *also])

    def after(self, *, also: Sequence[Target] = ()) -> Apps:
        """Run the migration (and only what it needs, and ``also``, e.g. another app's migration
        that depends on it); the apps as they are after it."""
        return self._migrate([self.target, *also])

    @staticmethod
    def latest() -> None:
        """Migrate every app to its latest migration."""
        executor = _executor()
        executor.migrate(executor.loader.graph.leaf_nodes())


@contextmanager
def data_migration(app: str, suffix: str) -> Iterator[DataMigration]:
    """The migration of ``app`` named ``…suffix``; the database is at the latest migrations again
    when the block ends, however it ends."""
    step = DataMigration(app, suffix)
    try:
        yield step
    finally:
        step.latest()
