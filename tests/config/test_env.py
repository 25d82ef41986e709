"""Settings with a wrong shape stop every process at start, naming the variable and the shape
(config/settings/env.py): a rate without its period, a number that is none, a yes/no that is
neither, a URL without its scheme, a level no logger knows."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings import env

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("read", "value", "expected"), [
    (lambda: env.env_rate("T", "10/min"), "200/hour", "200/hour"),
    (lambda: env.env_rate("T", "10/min"), "5/s", "5/s"),
    (lambda: env.env_rate("T", "10/min"), "", "10/min"),  # empty is unset
    (lambda: env.env_int("T", 3), " 42 ", 42),
    (lambda: env.env_int("T", 3, minimum=1, maximum=65535), "587", 587),
    (lambda: env.env_float("T", 5.0), "0.5", 0.5),
    (lambda: env.env_bool("T", False), "Yes", True),
    (lambda: env.env_bool("T", True), "off", False),
    (lambda: env.env_url("T", "", schemes=("redis", "rediss")), "redis://cache:6379/0", "redis://cache:6379/0"),
    (lambda: env.env_url("T", "", schemes=("postgres", "sqlite")), "sqlite:///tmp/x.db", "sqlite:///tmp/x.db"),
    (lambda: env.env_choice("T", "WARNING", ("INFO", "WARNING")), "INFO", "INFO"),
    (lambda: env.env_origins("T"), "https://a.org, https://*.b.org", ["https://a.org", "https://*.b.org"]),
    (lambda: env.env_origins("T", separator=None), "https://a.org  https://b.org", ["https://a.org", "https://b.org"]),
])
def test_a_value_of_the_right_shape_is_read(monkeypatch, read, value, expected):
    monkeypatch.setenv("T", value)
    assert read() == expected


@pytest.mark.parametrize(("read", "value", "shape"), [
    (lambda: env.env_rate("T", "10/min"), "200", "a rate: requests/period"),
    (lambda: env.env_rate("T", "10/min"), "ten/min", "a rate"),
    (lambda: env.env_rate("T", "10/min"), "10/fortnight", "a rate"),
    (lambda: env.env_int("T", 3), "3.5", "a whole number from 0 up"),
    (lambda: env.env_int("T", 3), "-1", "a whole number from 0 up"),
    (lambda: env.env_int("T", 3, minimum=1, maximum=65535), "70000", "a whole number from 1 to 65535"),
    (lambda: env.env_float("T", 5.0), "five", "a number of at least 0"),
    (lambda: env.env_float("T", 5.0), "nan", "a number of at least 0"),
    (lambda: env.env_bool("T", False), "maybe", "a yes or no"),
    (lambda: env.env_url("T", "", schemes=("redis", "rediss")), "cache:6379", "a URL starting redis:// or rediss://"),
    (lambda: env.env_url("T", "", schemes=("postgres",)), "postgres://db:port/x", "a URL starting postgres://"),
    (lambda: env.env_url("T", "", schemes=("https",)), "https:///path-only", "a URL starting https://"),
    (lambda: env.env_choice("T", "WARNING", ("INFO", "WARNING")), "warn", "one of INFO, WARNING"),
    (lambda: env.env_origins("T"), "example.org", "a list of origins"),
])
def test_a_value_of_the_wrong_shape_is_refused_naming_the_variable(monkeypatch, read, value, shape):
    monkeypatch.setenv("T", value)
    with pytest.raises(ImproperlyConfigured) as refused:
        read()
    assert str(refused.value).startswith(f"T={value.strip()!r} is not {shape}")


def start(**variables: str) -> subprocess.CompletedProcess[str]:
    """``manage.py check`` in a fresh process, as a server or worker would load the settings."""
    clean = {k: v for k, v in os.environ.items() if k not in variables}
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**clean, "DJANGO_DEBUG": "1", **variables})


@pytest.mark.integration  # starts manage.py in a process of its own
@pytest.mark.parametrize(("name", "value", "shape"), [
    ("THROTTLE_TOKEN", "200", "is not a rate: requests/period"),  # read by DRF as no rate at all: a 500 per request
    ("UPLOAD_MAX_MB", "200MB", "is not a whole number"),
    ("JOB_DEAD_SECONDS", "45s", "is not a number"),
    ("DJANGO_SECURE_COOKIES", "sometimes", "is not a yes or no"),
    ("REDIS_URL", "localhost:6379", "is not a URL starting redis://"),
    ("LOG_LEVEL", "verbose", "is not one of DEBUG, INFO, WARNING, ERROR, CRITICAL"),
])
def test_a_wrong_setting_stops_the_start_with_its_name(name, value, shape):
    done = start(**{name: value})
    assert done.returncode != 0
    assert f"EnvironmentValueError: {name}={value!r} {shape}" in done.stderr, done.stderr[-2000:]


@pytest.mark.integration
def test_the_right_shapes_start():
    done = start(THROTTLE_TOKEN="200/hour", UPLOAD_MAX_MB="300", LOG_LEVEL="INFO", DJANGO_SECURE_COOKIES="0")
    assert done.returncode == 0, done.stderr[-2000:]
