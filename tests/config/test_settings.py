"""Settings for a deployment: DEBUG only when asked for, a real secret key required, and a
deploy check that leaves only what the https proxy is responsible for."""

import json
import os
import re
import secrets
import string
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Variables of the calling environment that would change what is checked.
SETTINGS_VARIABLES = ("DJANGO_DEBUG", "DJANGO_SECRET_KEY", "DJANGO_ALLOWED_HOSTS", "DJANGO_SECURE_COOKIES",
                      "ARGCROWD_TEST_RUN", "DATABASE_URL", "REDIS_URL", "DJANGO_ALLOW_ASYNC_UNSAFE",
                      "DATABASE_PREPARED", "MEDIA_ROOT", "MEDIA_MAX_FILE_MB", "MEDIA_S3_BUCKET", "MEDIA_S3_REGION", "MEDIA_S3_ENDPOINT_URL")


def run(args, **env):
    clean = {k: v for k, v in os.environ.items() if k not in SETTINGS_VARIABLES}
    return subprocess.run([sys.executable, *args], cwd=ROOT, env={**clean, **env},
                          capture_output=True, text=True, timeout=120)


def random_key() -> str:
    return "".join(secrets.choice(string.ascii_letters + string.digits + "!@#%^&*(-_=+)") for _ in range(50))


@pytest.mark.integration
def test_deploy_check_leaves_only_hsts_and_ssl_redirect_to_the_proxy():
    done = run(["manage.py", "check", "--deploy"], DJANGO_DEBUG="0", DJANGO_SECRET_KEY=random_key(),
               DJANGO_ALLOWED_HOSTS="example.org")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert sorted(set(re.findall(r"\(([\w.]+\.[EWCI]\d{3})\)", output))) == ["security.W004", "security.W008"], output
    assert "System check identified 2 issues" in output


SHOW = "import config.settings as s; print(s.DEBUG, s.DEPLOYED, s.SESSION_COOKIE_SECURE if s.DEPLOYED else '-')"


@pytest.mark.integration
def test_debug_is_off_unless_asked_for():
    assert run(["-c", SHOW], DJANGO_SECRET_KEY=random_key()).stdout.split() == ["False", "True", "True"]
    assert run(["-c", SHOW], DJANGO_DEBUG="1").stdout.split() == ["True", "False", "-"]


@pytest.mark.integration
def test_without_a_secret_key_a_deployment_refuses_to_start():
    done = run(["-c", SHOW])
    assert done.returncode != 0
    assert "DJANGO_SECRET_KEY must be set when DJANGO_DEBUG is off" in done.stderr


@pytest.mark.integration
def test_a_test_run_needs_no_secret_key():
    # What pytest hands to the processes it starts (a Celery worker, concurrent clients).
    assert run(["-c", SHOW], ARGCROWD_TEST_RUN="1").stdout.split() == ["False", "False", "-"]


@pytest.mark.integration
def test_make_run_asks_for_debug(tmp_path):
    """Every command `make run` starts (install, migrate, demo, server) runs with DJANGO_DEBUG=1;
    a stand-in for the virtualenv's python records what it was given."""
    log = tmp_path / "calls.log"
    fake = tmp_path / "python"
    fake.write_text(f'#!/bin/sh\necho "DJANGO_DEBUG=$DJANGO_DEBUG $*" >> {log}\n')
    fake.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_DEBUG"}
    done = subprocess.run(["make", "-s", "run", f"PY={fake}", f"VENV={tmp_path}"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    calls = log.read_text().splitlines()
    assert [c.split()[2] for c in calls if len(c.split()) > 2] == ["pip", "migrate", "load_demo", "serve"]
    assert all(c.startswith("DJANGO_DEBUG=1 ") for c in calls)


def test_docker_compose_sends_cookies_over_https_only_by_default():
    compose = (ROOT / "docker-compose.yml").read_text()
    assert "DJANGO_SECURE_COOKIES: ${DJANGO_SECURE_COOKIES:-1}" in compose


STORAGE = ("import json, config.settings as s; "
           "print(json.dumps([s.STORAGES['default'], s.MEDIA_MAX_FILE_MB, str(s.MEDIA_ROOT)]))")


@pytest.mark.integration
def test_files_go_to_media_root_unless_an_s3_bucket_is_named(tmp_path):
    local = run(["-c", STORAGE], ARGCROWD_TEST_RUN="1", MEDIA_ROOT=str(tmp_path), MEDIA_MAX_FILE_MB="80")
    assert json.loads(local.stdout) == [{"BACKEND": "django.core.files.storage.FileSystemStorage"}, 80, str(tmp_path)]
    s3 = run(["-c", STORAGE], ARGCROWD_TEST_RUN="1", MEDIA_S3_BUCKET="clips", MEDIA_S3_REGION="eu-central-1",
             MEDIA_S3_ENDPOINT_URL="https://s3.example.org")
    storage, max_mb, _ = json.loads(s3.stdout)
    assert max_mb == 50
    assert storage["BACKEND"] == "storages.backends.s3.S3Storage"
    assert {k: storage["OPTIONS"][k] for k in ("bucket_name", "region_name", "endpoint_url", "file_overwrite")} == {
        "bucket_name": "clips", "region_name": "eu-central-1", "endpoint_url": "https://s3.example.org",
        "file_overwrite": False}


@pytest.mark.integration
def test_prepared_statements_are_on_unless_turned_off():
    show = ("import config.settings as s; o = s.DATABASES['default'].get('OPTIONS', {}); "
            "print(s.DATABASE_PREPARED, o.get('server_side_binding'), o.get('prepare_threshold'))")
    url = "postgres://postgres@127.0.0.1:5432/unused"
    on = run(["-c", show], DJANGO_DEBUG="1", DATABASE_URL=url)
    off = run(["-c", show], DJANGO_DEBUG="1", DATABASE_URL=url, DATABASE_PREPARED="0")
    assert on.stdout.split() == ["True", "True", "5"], on.stderr
    assert off.stdout.split() == ["False", "True", "None"], off.stderr


PAGES = """
import django, os
os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
django.setup()
from django.test import Client
client = Client(raise_request_exception=False, HTTP_HOST="127.0.0.1")
login = client.get("/accounts/login/")
print(client.get("/no-such-page/").status_code, login.status_code)
print([line for line in login.content.decode().splitlines() if "app." in line and "css" in line][0].strip())
"""


@pytest.mark.integration
def test_an_unknown_address_is_404_in_a_deployment_with_or_without_collectstatic(tmp_path):
    env = {"DJANGO_SECRET_KEY": random_key(), "SQLITE_PATH": str(tmp_path / "db.sqlite3"),
           "ARGCROWD_VAR_DIR": str(tmp_path / "var"), "STATIC_ROOT": str(tmp_path / "static")}
    # Not collected: the page names the file as it is, and still renders.
    done = run(["-c", PAGES], **env)
    assert done.returncode == 0, done.stderr
    statuses, link = done.stdout.splitlines()
    assert statuses == "404 200" and 'href="/static/css/app.css"' in link
    assert "not in the manifest: run `manage.py collectstatic`" in done.stderr
    # Collected: the hashed names of the manifest.
    collected = run(["manage.py", "collectstatic", "--noinput", "-v0"], **env)
    assert collected.returncode == 0, collected.stderr
    done = run(["-c", PAGES], **env)
    statuses, link = done.stdout.splitlines()
    assert statuses == "404 200" and re.search(r'href="/static/css/app\.[0-9a-f]{12}\.css"', link), link
