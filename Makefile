# The two commands the README names. Both install what they need first, then
# bundle web/ into build/web (the server serves web/'s modules as written without it).
VENV ?= .venv
PY := $(VENV)/bin/python
# pytest-xdist workers: the suite takes ~26 min on one. Each worker has its own Redis,
# cluster and browsers (conftest.py's session fixtures); --dist loadfile keeps a file's
# tests, and its module fixtures, on one worker.
TEST_WORKERS ?= 2

.PHONY: run test lint bench

run:
	@bash scripts/bootstrap.sh run
	@bash scripts/build-web.sh
	@$(VENV)/bin/gunicorn -c server/gunicorn_conf.py 'server:create_app()'

test:
	@bash scripts/bootstrap.sh test
	@WEB_DEV_TOOLS=1 bash scripts/build-web.sh
	@$(VENV)/bin/ruff check .
	@$(VENV)/bin/mypy
	@bash scripts/typecheck-web.sh
	@$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile $(PYTEST_ARGS)

lint:
	@$(VENV)/bin/ruff check .
