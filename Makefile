# Two commands on a fresh machine: `make run` (demo on http://127.0.0.1:8000) and `make test`;
# `make docs` builds the manual into site/.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1:8000

.PHONY: run test lint docs migrate demo worker beat bench clean

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall only when a requirements file changes.
$(VENV)/.runtime: requirements.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(VENV)/.dev: requirements-dev.txt $(VENV)/.runtime
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

$(VENV)/.docs: requirements-docs.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements-docs.txt
	touch $@

migrate: $(VENV)/.runtime
	$(PY) manage.py migrate --noinput

demo: migrate
	$(PY) manage.py load_demo

# A local run asks for DEBUG (and with it a throwaway secret key; deployments never set it) and
# starts a job worker beside the web server; nothing else needs to be installed.
run: export DJANGO_DEBUG ?= 1
run: demo
	@echo "Serving on http://$(HOST)/ with a job worker (Ctrl+C stops both)"
	$(PY) manage.py serve $(HOST)

test: $(VENV)/.dev
	$(PY) -m pytest

# mypy's Django plugin loads the settings, which want a secret key unless DEBUG is on: a type
# check reads them as a local run does.
lint: $(VENV)/.dev
	$(PY) -m ruff check .
	DJANGO_DEBUG=1 $(PY) -m mypy

# The manual (docs/, mkdocs.yml) into site/; --strict turns every warning (a broken link or
# anchor, a page missing from the nav) into a failure. The variable silences Material's banner
# about its successor, which is not a warning about the manual.
docs: $(VENV)/.docs
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --site-dir site

# A job worker on its own (production runs it beside gunicorn, with `make beat`).
worker: $(VENV)/.runtime
	$(VENV)/bin/celery -A config worker --loglevel INFO

beat: $(VENV)/.runtime
	$(VENV)/bin/celery -A config beat --loglevel INFO

clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-wal db.sqlite3-shm staticfiles var site .pytest_cache
