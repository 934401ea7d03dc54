# Two commands for a fresh machine (each installs what it needs):
#   make serve   build the site and serve it at http://127.0.0.1:8000/ (PORT=8010 make serve for another port)
#   make test    run every test (unit, property, build, Pyodide, headless Chromium)
# and one for a quick look before a commit:
#   make check   the formatter, the linters and every test that needs no browser (about 90 s)
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
CHROMIUM ?= /usr/bin/chromium
PORT ?= 8000
export NO_MKDOCS_2_WARNING := 1
export C9_CHROMIUM := $(CHROMIUM)

.PHONY: serve build test check lint lint-js bench deps site-deps chromium clean

serve: site-deps
	$(VENV)/bin/mkdocs serve --strict -a 127.0.0.1:$(PORT)

build: site-deps
	$(VENV)/bin/mkdocs build --strict

# pytest runs on two workers (pyproject.toml: addopts); `-n 0` runs a single test in one process.
test: deps chromium
	$(PY) -m pytest

# The linters run as tests (tests/test_lint.py); C9_QUICK=1 draws a fifth of each property test's examples.
check: deps
	C9_QUICK=1 $(PY) -m pytest -m "not browser"

lint: deps lint-js
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .

# ESLint over the page scripts, the widget scripts, the service worker and the Node tools (package.json).
lint-js: node_modules/.installed
	npm run lint

bench: deps chromium
	$(PY) bench/bench_codecs.py
	$(PY) bench/bench_site.py
	$(PY) bench/bench_first_touch.py
	$(PY) bench/bench_lighthouse.py
	node bench/bench_snapshot.mjs

# The site needs only the package's own dependencies; the tests add pytest, Playwright, ml_dtypes and
# torch (the lab's smoke test).
site-deps: $(VENV)/.site node_modules/.installed
deps: $(VENV)/.installed node_modules/.installed

$(VENV)/.site: pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed: pyproject.toml $(VENV)/.site
	$(PY) -m pip install -q -e '.[test,lab]'
	touch $@

node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

# Debian's Chromium for the browser tests (Playwright cannot download browsers here).
chromium:
	@test -x $(CHROMIUM) || { echo "installing Debian's chromium"; apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

clean:
	rm -rf site build .pytest_cache
