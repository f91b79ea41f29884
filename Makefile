# Two commands on a fresh machine: `make demo` and `make test` (README).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-all lint format proofs bench compare mutation install clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP): $(PY) pyproject.toml
	$(PY) -m pip install -q -e '.[test,plot,dp_accounting,dask]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/verialloc demo

test: $(STAMP)
	$(PY) -m pytest -q
	$(PY) -m proofs_checks

# the linter and the formatter (ruff, configured in pyproject.toml); CI runs `make lint` before `make test`
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

test-all: $(STAMP)
	HYPOTHESIS_PROFILE=deep $(PY) -m pytest -q -m ''
	$(PY) -m proofs_checks

bench: $(STAMP)
	$(PY) benchmarks/run.py

compare: $(STAMP)
	$(PY) benchmarks/compare_methods.py

# mutation testing of the soundness-critical core (issue #15; docs/verification.md): the hand-made mutations
# must all fail their tests, then a seeded sample of mutmut's mutants per module (--per-module 5 by default: ~40 min on 2 cores)
mutation: $(STAMP)
	$(PY) -m pip install -q -e '.[test,plot,dp_accounting,dask,mutation]'
	$(PY) -m mutation.curated
	$(PY) -m mutation.run

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
