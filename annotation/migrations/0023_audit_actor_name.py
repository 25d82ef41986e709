"""The audit log keeps the actor's user name beside the foreign key (so that a deleted account's
entries still say who acted), and a withdrawn item keeps the kind it had (so that staff may undo
the withdrawal)."""

from django.conf import settings
from django.db import migrations, models


def fill(apps, schema_editor):
    AuditEntry = apps.get_model("annotation", "AuditEntry")
    User = apps.get_model(settings.AUTH_USER_MODEL)
    names = dict(User.objects.filter(pk__in=AuditEntry.objects.exclude(actor=None).values("actor"))
                 .values_list("pk", "username"))
    for pk, name in names.items():
        AuditEntry.objects.filter(actor_id=pk, actor_name="").update(actor_name=name)
    # A withdrawn item's kind before, as its latest withdrawal recorded it.
    Item = apps.get_model("annotation", "Item")
    withdrawn = set(Item.objects.filter(kind="withdrawn").values_list("pk", flat=True))
    if not withdrawn:
        return
    before: dict[int, str] = {}
    for details in AuditEntry.objects.filter(action="item_withdraw").order_by("at", "pk").values_list("details", flat=True):
        item, kind = (details or {}).get("item"), (details or {}).get("kind_before")
        if item in withdrawn and kind in ("real", "gold", "training"):
            before[item] = kind
    for item, kind in before.items():
        Item.objects.filter(pk=item).update(kind_before_withdrawal=kind)


class Migration(migrations.Migration):

    dependencies = [
        ('annotation', '0022_standing_options'),
    ]

    operations = [
        migrations.AddField(
            model_name='auditentry',
            name='actor_name',
            field=models.CharField(blank=True, default='', max_length=150),
        ),
        migrations.AddField(
            model_name='item',
            name='kind_before_withdrawal',
            field=models.CharField(blank=True, db_default='', default='', max_length=10),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
    ]
