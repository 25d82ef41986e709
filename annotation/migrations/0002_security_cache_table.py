"""The table of the database cache (settings.CACHES without Redis), where throttles count
requests for every web process. Made by migrate so that no extra setup step can be forgotten."""

from django.core.management.commands.createcachetable import Command as CreateCacheTable
from django.db import migrations

# Must match settings.CACHES["default"]["LOCATION"] for the database cache.
CACHE_TABLE = "argcrowd_cache"


def create(apps, schema_editor):
    command = CreateCacheTable()
    command.verbosity = 0
    command.create_table(schema_editor.connection.alias, CACHE_TABLE, dry_run=False)


def drop(apps, schema_editor):
    if CACHE_TABLE in schema_editor.connection.introspection.table_names():
        schema_editor.execute(f"DROP TABLE {schema_editor.quote_name(CACHE_TABLE)}")


class Migration(migrations.Migration):
    dependencies = [("annotation", "0001_initial")]

    operations = [migrations.RunPython(create, drop)]
