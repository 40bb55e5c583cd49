# genbench: every target sets up .venv/ first if needed (nothing else is needed on a fresh machine).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The test suite and the demo never touch the network.
OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1

.PHONY: install demo test test-original check-quality fix-style typecheck bench docs clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade --quiet pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

## Run the main job on embedded defaults: every registry task, zero- and few-shot, baseline predictors
## (also as results files in the format of `genbench-cli run`, under demo_results/results).
demo: $(STAMP)
	$(OFFLINE) $(BIN)/genbench-cli demo --output-dir demo_results --results-dir demo_results/results

## Run the whole test suite (offline).
test: $(STAMP)
	$(OFFLINE) $(BIN)/python -m pytest -q

## The original GenBench framework's own suites against this package (checkouts in ORIGINAL_REPOS).
ORIGINAL_REPOS ?= /tmp/orig/genbench_cbt:/tmp/orig/genbench_cbt_2023
test-original: $(STAMP)
	$(OFFLINE) GENBENCH_ORIGINAL_REPOS=$(ORIGINAL_REPOS) $(BIN)/python -m pytest -q tests/compat

check-quality: $(STAMP)
	$(BIN)/ruff check src tests benchmarks .github
	$(BIN)/ruff format --check src tests benchmarks .github

fix-style: $(STAMP)
	$(BIN)/ruff check --fix src tests benchmarks .github
	$(BIN)/ruff format src tests benchmarks .github

typecheck: $(STAMP)
	$(BIN)/mypy

## Performance benchmarks (results printed as ratios against baselines measured in the same run).
bench: $(STAMP)
	$(OFFLINE) $(BIN)/python benchmarks/prompt_preparation.py
	$(OFFLINE) $(BIN)/python benchmarks/reranking_metrics.py
	$(OFFLINE) $(BIN)/python benchmarks/contamination.py

## Build the documentation site (strict: broken links and missing pages fail).
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) demo_results build dist src/*.egg-info
