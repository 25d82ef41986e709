# Two commands on a fresh machine: `make run` (demo on http://127.0.0.1:8000) and `make test`;
# `make docs` builds the manual into site/.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1:8000

.PHONY: run test test-quick fuzz-api lint docs migrate demo worker beat bench clean audit pins advisories

$(PY):
	$(PYTHON) -m venv $(VENV)

# Reinstall only when a requirements file changes. Every file is compiled with a hash for each
# pin (`make pins`), and --require-hashes refuses any download whose hash is not listed.
$(VENV)/.runtime: requirements.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements.txt
	touch $@

$(VENV)/.dev: requirements-dev.txt $(VENV)/.runtime
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements-dev.txt
	touch $@

$(VENV)/.docs: requirements-docs.txt | $(PY)
	$(PY) -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements-docs.txt
	touch $@

# pip-tools, at the version requirements-tools.txt pins, in a virtualenv of its own: compiling
# never changes the project's environment.
TOOLS := .venv-tools
$(TOOLS)/.pip-tools: requirements-tools.txt
	$(PYTHON) -m venv $(TOOLS)
	$(TOOLS)/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements-tools.txt
	touch $@

# Recompile every requirements*.txt from its .in source, keeping today's versions; a new
# dependency gets the newest release. `make pins UPGRADE=--upgrade` moves everything to the newest,
# `UPGRADE="--upgrade-package django"` one package. The order matters: each later file is
# constrained (-c) by an earlier one, so that a package has one version everywhere.
PIP_COMPILE = $(TOOLS)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links $(UPGRADE)
pins: $(TOOLS)/.pip-tools
	$(PIP_COMPILE) requirements.in -o requirements.txt
	$(PIP_COMPILE) requirements-dev.in -o requirements-dev.txt
	$(PIP_COMPILE) requirements-bench.in -o requirements-bench.txt
	$(PIP_COMPILE) requirements-embeddings.in -o requirements-embeddings.txt
	$(PIP_COMPILE) requirements-docs.in -o requirements-docs.txt
	$(PIP_COMPILE) requirements-tools.in -o requirements-tools.txt

# Known vulnerabilities in the pinned versions, from the vendored advisory snapshot (no network).
audit: $(VENV)/.runtime
	$(PY) .ci/audit_dependencies.py

# Rebuild that snapshot from a clone of the PyPA advisory database:
# `make advisories ADVISORY_DB=../advisory-database`.
advisories: $(VENV)/.dev
	@test -n "$(ADVISORY_DB)" || { echo "set ADVISORY_DB to a clone of the PyPA advisory database"; exit 2; }
	$(PY) .ci/refresh_advisories.py $(ADVISORY_DB)

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

# The suite on DATABASE_URL, or on SQLITE_TEST_PATH; with neither, on a new SQLite file (as
# fuzz-api), so that the real-worker tests, whose workers open the test database from another
# process, run instead of skipping as they would on an in-memory one. It runs in TEST_WORKERS
# processes side by side (pytest-xdist), each with its own test database, job queue, cache prefix
# and folders; TEST_WORKERS=0 runs it in this one process.
TEST_WORKERS ?= 2
test: $(VENV)/.dev
	$(if $(DATABASE_URL)$(SQLITE_TEST_PATH),,SQLITE_TEST_PATH=$$(mktemp -d)/test.sqlite3) $(PY) -m pytest -n $(TEST_WORKERS)

# The same without the tests marked `integration` (those that start a browser, a server, a
# subprocess or a worker; tests/support/markers.py) or `slow` (historic data migrations, large
# simulations; docs/development.md): the quick tier to run while working.
test-quick: $(VENV)/.dev
	$(if $(DATABASE_URL)$(SQLITE_TEST_PATH),,SQLITE_TEST_PATH=$$(mktemp -d)/test.sqlite3) $(PY) -m pytest -n $(TEST_WORKERS) -m "not integration and not slow"

# Schemathesis over the whole API schema of a live server, as every role (tests/api_fuzz/): about
# two minutes. It needs a database a second process can open: PostgreSQL (DATABASE_URL) or a
# SQLite file (SQLITE_TEST_PATH, set here when neither is given). FUZZ_API_EXAMPLES and
# FUZZ_API_SEED make a longer or another run.
fuzz-api: $(VENV)/.dev
	$(if $(DATABASE_URL)$(SQLITE_TEST_PATH),,SQLITE_TEST_PATH=$$(mktemp -d)/fuzz.sqlite3) FUZZ_API=1 $(PY) -m pytest -m api_fuzz tests/api_fuzz

# mypy's Django plugin loads the settings, which want a secret key unless DEBUG is on: a type
# check reads them as a local run does. The API's OpenAPI schema must generate with no warning
# and validate (an API view without its description fails here).
lint: $(VENV)/.dev
	$(PY) -m ruff check .
	DJANGO_DEBUG=1 $(PY) -m mypy
	DJANGO_DEBUG=1 $(PY) manage.py spectacular --fail-on-warn --validate >/dev/null

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
	rm -rf $(VENV) $(TOOLS) db.sqlite3 db.sqlite3-wal db.sqlite3-shm staticfiles var site .pytest_cache
