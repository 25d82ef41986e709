"""The database: SQLite next to manage.py (embedded), or PostgreSQL from ``DATABASE_URL``."""

import dj_database_url

from config.settings.base import BASE_DIR
from config.settings.env import env_bool, env_str, env_url

_database_url = env_url("DATABASE_URL", "", schemes=("postgres", "postgresql", "pgsql", "sqlite"))
if _database_url:
    # Kept connections are checked before use: no request meets one a database restart killed.
    DATABASES = {"default": dj_database_url.parse(_database_url, conn_max_age=60, conn_health_checks=True)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": env_str("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            "OPTIONS": {
                # IMMEDIATE takes the write lock when a transaction starts, so two requests can
                # never both read "one slot left" and both write: SQLite's stand-in for row locks.
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }
    # In-memory databases cannot use WAL; the test runner creates one.
    DATABASES["default"]["TEST"] = {"NAME": env_str("SQLITE_TEST_PATH", "") or None}

# PostgreSQL: statements are sent with their parameters apart (server-side binding), and psycopg
# prepares each one that a connection runs a fifth time, so the server plans the annotator's
# loop once per connection rather than on every request. Set DATABASE_PREPARED=0 behind a
# connection pooler in transaction mode that does not track prepared statements.
DATABASE_PREPARED = env_bool("DATABASE_PREPARED", True)
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        server_side_binding=True, prepare_threshold=5 if DATABASE_PREPARED else None)
