"""Pay per hour: the reward per item over the median recorded time of counted answers, beside
Prolific's documented minimum (£6.00 / $8.00 per hour), with a warning below it."""

from decimal import Decimal

import pytest

from annotation.models import Annotation, Assignment, AuditEntry
from recruiting.providers.minimum_pay import MINIMUM_HOURLY, minimum_hourly
from recruiting.selectors.pay_rate import project_pay_rate
from recruiting.services.project_pay import PaySettingRefused, project_pay_set
from tests.factories import AssignmentFactory, ItemFactory, ProjectFactory

pytestmark = pytest.mark.django_db


def answered(project, seconds, status=Assignment.Status.SUBMITTED):
    for s in seconds:
        a = AssignmentFactory(item=ItemFactory(project=project), status=status)
        Annotation.objects.create(assignment=a, answer={"label": "a1"}, seconds=s)


def test_minimums_are_one_table_keyed_by_marketplace():
    assert MINIMUM_HOURLY["prolific"] == {"GBP": Decimal("6.00"), "USD": Decimal("8.00")}
    assert minimum_hourly(marketplace="prolific", currency="usd") == Decimal("8.00")
    assert minimum_hourly(marketplace="prolific", currency="EUR") is None


def test_hourly_rate_from_the_median_time_and_the_warning_below_the_minimum():
    project = ProjectFactory()
    # Median of the counted answers' times is 40 s; the rejected 1000 s and the untimed one do not count.
    answered(project, [20, 40, 300])
    answered(project, [1000], status=Assignment.Status.REJECTED)
    answered(project, [None])
    rate = project_pay_rate(project=project)
    assert rate.reward_per_item is None and rate.hourly is None and rate.answers == 3 and rate.median_seconds == 40
    project_pay_set(project=project, reward_per_item="0.05", currency="GBP", actor=None)
    rate = project_pay_rate(project=project)
    assert rate.hourly == Decimal("4.50") and rate.minimum_hourly == Decimal("6.00") and rate.below_minimum
    # 6.00 an hour at 40 s an item is 0.0667: the reward needed rounds up to 0.07.
    assert rate.reward_needed == Decimal("0.07")
    assert rate.warning == ("4.50 GBP per hour is below Prolific's minimum of 6.00 GBP: raise the reward per item "
                            "to at least 0.07 GBP.")
    project_pay_set(project=project, reward_per_item="0.07", currency="GBP", actor=None)
    rate = project_pay_rate(project=project)
    assert rate.hourly == Decimal("6.30") and not rate.below_minimum and rate.warning == ""
    assert rate.as_dict()["hourly"] == "6.30" and rate.as_dict()["below_minimum"] is False
    assert AuditEntry.objects.filter(action="settings", target="pay per item").count() == 2


def test_an_even_count_takes_the_mean_of_the_middle_two():
    project = ProjectFactory()
    answered(project, [10, 20, 30, 100])
    project_pay_set(project=project, reward_per_item="0.10", currency="USD", actor=None)
    rate = project_pay_rate(project=project)
    assert rate.median_seconds == 25 and rate.hourly == Decimal("14.40") and rate.minimum_hourly == Decimal("8.00")


@pytest.mark.parametrize("reward, currency, field", [("abc", "GBP", "reward_per_item"), ("0", "GBP", "reward_per_item"),
                                                     ("NaN", "GBP", "reward_per_item"), ("0.10", "pounds", "currency")])
def test_bad_settings_name_their_field(reward, currency, field):
    with pytest.raises(PaySettingRefused) as refused:
        project_pay_set(project=ProjectFactory(), reward_per_item=reward, currency=currency, actor=None)
    assert refused.value.field == field
