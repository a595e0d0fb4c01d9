# Two commands on a fresh machine (Python 3.11+ as python3):
#   make demo   settle real showdowns end to end
#   make test   lint, type-check and run every test
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest bench schema clean

$(STAMP): pyproject.toml shared/pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ./shared -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/showdown demo

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python -m bench

schema: $(STAMP)
	$(BIN)/showdown schema --out shared/schemas

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .ruff_cache
