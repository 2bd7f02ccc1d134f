# Two commands do everything on a fresh machine:
#   make demo   -- create .venv, install qwkit with its command line, run `qwkit demo`
#   make test   -- create .venv, install qwkit with every extra and the test tools, run the suite
#                  (it builds the documentation site and the release artifacts and checks them,
#                  and runs mypy on the package: tests/test_typing.py)
#                  on every core: pytest-xdist, a test file per worker at a time
# and two build what is published:
#   make docs   -- the documentation site, docs/_build/html (warnings are errors)
#   make dist   -- the sdist and the wheel, dist/ (metadata checked by twine)
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip

.PHONY: demo test docs dist bench lint clean venv

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade "pip>=25.1"

venv: $(PY)

demo: $(PY)
	$(PIP) install --quiet -e ".[cli]"
	$(VENV)/bin/qwkit demo

test: $(PY)
	command -v chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
	@# qwkit.spark's tests run Spark, on a Java runtime (17 or 21) that pip does not install
	command -v java >/dev/null 2>&1 || [ -n "$$JAVA_HOME" ] || { apt-get update -qq && apt-get install -y -qq openjdk-17-jre-headless >/dev/null; }
	$(PIP) install --quiet -e ".[all]" --group test
	$(PY) -m pytest -q -n auto --dist loadfile

docs: $(PY)
	$(PIP) install --quiet -e ".[all]" --group docs
	$(PY) -m sphinx -W --keep-going -n -b html docs docs/_build/html
	@echo "The site: docs/_build/html/index.html"

dist: $(PY)
	$(PIP) install --quiet --group release
	rm -rf dist
	$(PY) -m build --outdir dist .
	$(PY) -m twine check --strict dist/*

# Every benchmark, at low priority (a shared machine stays usable; each script records the
# machine, nice level and load). Output: benchmarks/results/*.md (not committed).
bench: $(PY)
	$(PIP) install --quiet -e ".[all]" --group test --group bench
	mkdir -p benchmarks/results
	nice $(PY) benchmarks/bench_kappa.py --output benchmarks/results/kappa.md
	nice $(PY) benchmarks/bench_weights.py --output benchmarks/results/weights.md
	nice $(PY) benchmarks/bench_inference.py > benchmarks/results/inference.md
	nice $(PY) benchmarks/coverage_inference.py > benchmarks/results/coverage.md
	nice $(PY) benchmarks/bench_regression.py > benchmarks/results/regression.md
	nice $(PY) benchmarks/bench_thresholds.py > benchmarks/results/thresholds.md
	nice $(PY) benchmarks/bench_agreement.py > benchmarks/results/agreement.md
	nice $(PY) benchmarks/bench_crowd.py > benchmarks/results/crowd.md
	nice $(PY) benchmarks/bench_evaluation.py > benchmarks/results/evaluation.md
	nice $(PY) benchmarks/bench_dask.py --n 1e7 --quick > benchmarks/results/dask.md
	nice $(PY) benchmarks/bench_polars.py > benchmarks/results/polars.md
	nice $(PY) benchmarks/bench_engines.py --n 1e7 > benchmarks/results/engines.md
	nice $(PY) benchmarks/bench_torch.py > benchmarks/results/torch.md
	nice $(PY) benchmarks/first_run.py > benchmarks/results/first_run.md
	nice $(PY) benchmarks/bench_startup.py > benchmarks/results/startup.md

lint: $(PY)
	$(PIP) install --quiet --group lint
	$(VENV)/bin/ruff check src tests benchmarks examples docs/conf.py docs/_ext
	$(VENV)/bin/ruff format --check src tests benchmarks examples docs/conf.py docs/_ext

clean:
	rm -rf $(VENV) build dist src/*.egg-info docs/_build docs/api docs/auto_examples
