# Two commands on a fresh machine: `make demo` and `make test` (README).
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test test-all lint format proofs bench compare mutation install browser clean

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

# a real headless Chromium for the accountant map's browser check (docs/testing.md), from the registries a machine
# here reaches: playwright (PyPI, the `browser` extra) drives the chrome-headless-shell that the npm package
# @sparticuz/chromium ships brotli-compressed in its tarball, unpacked into the git-ignored .browser/ (needs node
# and npm). .browser/chrome runs it, with the package's own libraries (libnss3, ...) only where the system lacks them.
BROWSER      := .browser
CHROMIUM_NPM := @sparticuz/chromium@153.0.0
UNBROTLI     := node -e 'const [a, b] = process.argv.slice(1), fs = require("fs"); \
	fs.writeFileSync(b, require("zlib").brotliDecompressSync(fs.readFileSync(a)))'

browser: $(STAMP) $(BROWSER)/chrome
	$(PY) -m pip install -q -e '.[browser]'

$(BROWSER)/chrome:
	rm -rf $(BROWSER) && mkdir -p $(BROWSER)
	cd $(BROWSER) && npm pack --silent $(CHROMIUM_NPM) >/dev/null && tar xzf *.tgz && rm *.tgz
	$(UNBROTLI) $(BROWSER)/package/bin/chromium.br $(BROWSER)/chromium && chmod +x $(BROWSER)/chromium
	if ldd $(BROWSER)/chromium | grep -q 'not found'; then \
	  $(UNBROTLI) $(BROWSER)/package/bin/al2023.tar.br $(BROWSER)/al2023.tar && tar xf $(BROWSER)/al2023.tar -C $(BROWSER); fi
	rm -rf $(BROWSER)/package $(BROWSER)/al2023.tar
	printf '%s\n' '#!/bin/sh' 'here=$$(cd "$$(dirname "$$0")" && pwd)' \
	  'LD_LIBRARY_PATH="$$here/lib$${LD_LIBRARY_PATH:+:$$LD_LIBRARY_PATH}" exec "$$here/chromium" "$$@"' > $@.tmp
	chmod +x $@.tmp && mv $@.tmp $@
	$@ --version

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis $(BROWSER)
