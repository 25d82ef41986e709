"""The registry of recruiting panels: presets by slug (an unknown one names the known), what each
puts in the study link, and the completion and screen-out URLs filled in from a worker's link."""

from types import SimpleNamespace

import pytest
from django.core.exceptions import ValidationError

from recruiting.panels import (
    CUSTOM,
    PANELS,
    UnknownPanel,
    exit_url,
    panel_get,
    panel_settings_check,
    panel_setup,
    study_link,
    template_check,
)

START = "https://crowd.example.org/start/study/"


def project(**fields):
    base = {"panel": "prolific", "worker_param": "worker_id", "custom_source": "link", "extra_params": "",
            "completion_url": "", "completion_code": ""}
    return SimpleNamespace(**{**base, **fields})


def test_an_unknown_preset_names_the_known_ones():
    with pytest.raises(UnknownPanel) as unknown:
        panel_get("qualtrics")
    message = str(unknown.value)
    assert "qualtrics" in message
    assert all(slug in message for slug in ("prolific", "mturk", "cloudresearch", "sona", CUSTOM))
    with pytest.raises(ValidationError) as refused:
        panel_settings_check(project(panel="qualtrics"))
    assert "known: cloudresearch, mturk, prolific, sona" in refused.value.message_dict["panel"][0]


def test_each_preset_reads_its_documented_worker_parameter():
    assert {slug: p.worker_param for slug, p in PANELS.items()} == {
        "prolific": "PROLIFIC_PID", "mturk": "workerId", "cloudresearch": "participantId", "sona": "id"}
    assert PANELS["prolific"].params == ("PROLIFIC_PID", "STUDY_ID", "SESSION_ID")
    assert PANELS["mturk"].params == ("workerId", "assignmentId", "hitId", "turkSubmitTo")
    assert PANELS["mturk"].preview == ("assignmentId", "ASSIGNMENT_ID_NOT_AVAILABLE")


@pytest.mark.parametrize(("panel", "link"), [
    ("prolific", START + "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"),
    ("mturk", START),  # MTurk appends its parameters to an ExternalQuestion's URL itself
    ("cloudresearch", START),
    ("sona", START + "?id=%SURVEY_CODE%"),
])
def test_the_study_link_carries_each_presets_placeholders(panel, link):
    assert study_link(setup=panel_setup(project(panel=panel)), start_url=START) == link


def test_a_custom_link_names_its_parameter():
    setup = panel_setup(project(panel=CUSTOM, worker_param="pid", custom_source="lab-pool", extra_params="wave, pid"))
    assert setup.source == "lab-pool" and setup.params == ("pid", "wave")
    assert study_link(setup=setup, start_url=START) == START + "?pid=WORKER_ID"


def test_prolific_completion_and_screen_out_urls_carry_their_codes():
    setup = panel_setup(project())
    done = exit_url(setup=setup, template=setup.completion_url, code="C0DE 7", params={})
    assert done.url == "https://app.prolific.com/submissions/complete?cc=C0DE%207" and done.post == ()
    out = exit_url(setup=setup, template=setup.screened_out_url, code="SCREENED", params={})
    assert out.url == "https://app.prolific.com/submissions/complete?cc=SCREENED"
    # No code, no URL: a link without its code would tell Prolific nothing.
    assert exit_url(setup=setup, template=setup.completion_url, code="", params={}) is None


def test_mturk_posts_the_assignment_to_its_own_submit_address_only():
    setup = panel_setup(project(panel="mturk"))
    params = {"workerId": "A1", "assignmentId": "AS9", "turkSubmitTo": "https://workersandbox.mturk.com/"}
    done = exit_url(setup=setup, template=setup.completion_url, code="X1", params=params)
    assert done.url == "https://workersandbox.mturk.com/mturk/externalSubmit"
    assert done.post == (("assignmentId", "AS9"), ("completion_code", "X1"))
    # A link that names another submit address gets MTurk's own, not the stranger's.
    forged = exit_url(setup=setup, template=setup.completion_url, code="",
                      params={**params, "turkSubmitTo": "https://evil.example"})
    assert forged.url == "https://www.mturk.com/mturk/externalSubmit"
    assert exit_url(setup=setup, template=setup.completion_url, code="", params={"workerId": "A1"}) is None


def test_sona_and_cloudresearch_take_the_url_the_panel_gives():
    sona = panel_setup(project(panel="sona", completion_url="https://uni.sona-systems.com/webstudy_credit.aspx"
                                                            "?experiment_id=12&credit_token=ab&survey_code={worker_id}"))
    assert exit_url(setup=sona, template=sona.completion_url, code="", params={"id": "4711"}).url.endswith(
        "credit_token=ab&survey_code=4711")
    connect = panel_setup(project(panel="cloudresearch"))
    assert connect.completion_url == ""  # no fixed URL: the project pastes the one Connect shows
    assert exit_url(setup=connect, template=connect.completion_url, code="C", params={}) is None


def test_templates_are_checked_for_unknown_placeholders_and_schemes():
    setup = panel_setup(project())
    template_check("https://app.prolific.com/submissions/complete?cc={code}&p={PROLIFIC_PID}", setup=setup,
                   field_name="completion_url")
    with pytest.raises(ValidationError, match=r"Unknown placeholders \{workerId\}"):
        template_check("https://x.example/?w={workerId}", setup=setup, field_name="completion_url")
    with pytest.raises(ValidationError, match="https://"):
        template_check("javascript:alert({code})", setup=setup, field_name="completion_url")
    for bad in ("{code!r}", "{code:>9}", "{0}", "{STUDY_ID.upper}", "{"):
        with pytest.raises(ValidationError):
            template_check(f"https://x.example/?a={bad}", setup=setup, field_name="completion_url")
    # Stored before it was checked, such a template gives no way out, never an error page.
    assert exit_url(setup=setup, template="https://x.example/?a={0}", code="c", params={}) is None


@pytest.mark.django_db
def test_the_screened_out_url_is_a_template_of_the_projects_panel():
    from quality.models import QualityPolicy
    from quality.services.settings import quality_policy_update
    from tests.factories import ProjectFactory

    project = ProjectFactory(panel="cloudresearch")
    policy = quality_policy_update(project=project, actor=None, values={
        "screened_out_url": "https://connect.example/out?p={participantId}&c={code}"})
    assert policy.screened_out_url.endswith("{participantId}&c={code}")
    with pytest.raises(ValidationError) as refused:
        quality_policy_update(project=project, actor=None, values={"screened_out_url": "https://x.example/{PROLIFIC_PID}"})
    assert "Unknown placeholders {PROLIFIC_PID}" in refused.value.message_dict["screened_out_url"][0]
    with pytest.raises(ValidationError) as refused:
        quality_policy_update(project=project, actor=None, values={
            "screened_out_url": "https://connect.example{participantId}/out"})
    assert "only after the host" in refused.value.message_dict["screened_out_url"][0]
    assert QualityPolicy.objects.get(project=project).screened_out_url == policy.screened_out_url


@pytest.mark.parametrize("template", [
    "https://panel.example.com{ret}/done", "https://{code}.example.com/done", "https://panel.example.com:{code}/",
    "https://user{worker_id}@panel.example.com/", "{code}", "https:{code}/done", "{STUDY_ID}/done",
])
def test_a_template_with_a_value_before_the_end_of_its_host_is_refused(template):
    setup = panel_setup(project(panel=CUSTOM, worker_param="ret", extra_params="ret"))
    with pytest.raises(ValidationError) as refused:
        template_check(template.replace("STUDY_ID", "ret"), setup=setup, field_name="completion_url")
    assert "only after the host" in refused.value.message_dict["completion_url"][0]


@pytest.mark.parametrize("template", [
    "https://panel.example.com/{ret}/done", "https://panel.example.com?r={ret}", "https://panel.example.com#{ret}",
    "https://panel.example.com/done?cc={code}&w={worker_id}",
])
def test_a_template_with_its_values_after_the_host_is_accepted(template):
    setup = panel_setup(project(panel=CUSTOM, worker_param="ret"))
    template_check(template, setup=setup, field_name="completion_url")


@pytest.mark.django_db
def test_a_project_whose_completion_url_lets_a_value_move_the_host_is_refused_on_save_and_at_render():
    from annotation.selectors.panel_exits import completion_exit
    from tests.factories import ProjectFactory

    stored = ProjectFactory(panel=CUSTOM, worker_param="ret", custom_source="lab", completion_code="C1",
                             completion_url="https://panel.example.com{ret}/done")
    with pytest.raises(ValidationError) as refused:
        stored.full_clean()
    assert list(refused.value.message_dict) == ["completion_url"]
    assert "only after the host" in refused.value.message_dict["completion_url"][0]
    # Stored before the check (the factory does not clean): no link out, never one to another host.
    setup = panel_setup(stored)
    assert exit_url(setup=setup, template=stored.completion_url, code="C1", params={"ret": ".evil.example"}) is None
    assert completion_exit(project=stored, params={"ret": ".evil.example"}) is None
    # MTurk's own template starts with its checked base parameter, and still works.
    mturk = panel_setup(project(panel="mturk"))
    template_check(mturk.completion_url, setup=mturk, field_name="completion_url")
    done = exit_url(setup=mturk, template=mturk.completion_url, code="",
                    params={"turkSubmitTo": "https://evil.example", "assignmentId": "A1", "workerId": "W"})
    assert done is not None and done.url == "https://www.mturk.com/mturk/externalSubmit"
