# The two commands of the README: `make serve` and `make test`. Both set everything up.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DB := build/academie.db
PORT ?= 8001

.PHONY: install build serve test bench clean

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

$(DB): $(VENV)/.installed $(wildcard corpus/*) $(wildcard pipeline/*.py pipeline/data/*) schema/academie.sql
	$(BIN)/academie build --corpus corpus --db $(DB)

build: $(DB)

serve: $(DB)
	$(BIN)/academie serve --db $(DB) --port $(PORT)

test: $(VENV)/.installed
	$(BIN)/python -m pytest -q

# the peer spellcheckers of bench/peers.py, on top of the test install
$(VENV)/.installed-bench: $(VENV)/.installed pyproject.toml
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $@

bench: $(VENV)/.installed-bench
	$(BIN)/python bench/run.py
	$(BIN)/python bench/peers.py

clean:
	rm -rf build $(VENV) .pytest_cache
