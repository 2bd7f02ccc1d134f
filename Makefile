# Two commands do everything on a fresh machine:
#   make demo   -- create .venv, install qwkit with its command line, run `qwkit demo`
#   make test   -- create .venv, install qwkit with every extra and the test tools, run the suite
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip

.PHONY: demo test bench lint clean venv

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade "pip>=25.1"

venv: $(PY)

demo: $(PY)
	$(PIP) install --quiet -e ".[cli]"
	$(VENV)/bin/qwkit demo

test: $(PY)
	command -v chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
	$(PIP) install --quiet -e ".[all]" --group test
	$(PY) -m pytest -q

bench: $(PY)
	$(PIP) install --quiet -e ".[all]" --group test --group bench
	$(PY) benchmarks/bench_kappa.py
	$(PY) benchmarks/bench_inference.py
	$(PY) benchmarks/bench_regression.py
	$(PY) benchmarks/bench_thresholds.py
	$(PY) benchmarks/bench_agreement.py

lint: $(PY)
	$(PIP) install --quiet --group lint
	$(VENV)/bin/ruff check src tests benchmarks
	$(VENV)/bin/ruff format --check src tests benchmarks

clean:
	rm -rf $(VENV) build dist src/*.egg-info
