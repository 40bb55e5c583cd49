# genbench: every target sets up .venv/ first if needed (nothing else is needed on a fresh machine).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The test suite and the demo never touch the network.
OFFLINE := HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 HF_HUB_DISABLE_TELEMETRY=1

.PHONY: install lmeval-venv demo test test-original check-quality fix-style typecheck bench bench-anchors install-size docs clean

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --upgrade --quiet pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e ".[dev]"
	touch $(STAMP)

install: $(STAMP)

## The reference for tests/runs/test_lmeval_parity.py: lm-evaluation-harness in its own venv (.venvs/lmeval), with
## the torch, transformers and tokenizers of .venv (so that the two sides differ only in their own code). A .pth file
## puts .venv's packages after the venv's own: those .venv has are not copied (torch included), pip adds lm-eval and
## what .venv lacks (about 150 MB and 15 s instead of 1.8 GB and a minute).
LMEVAL_VENV := .venvs/lmeval
LMEVAL_STAMP := $(LMEVAL_VENV)/.installed
LMEVAL_PINS := "lm-eval[hf]==0.4.13"
SITE_PACKAGES := import sysconfig; print(sysconfig.get_paths()["purelib"])
$(LMEVAL_STAMP): $(STAMP) constraints.txt
	test -x $(LMEVAL_VENV)/bin/python || $(PYTHON) -m venv $(LMEVAL_VENV)
	echo "import site; site.addsitedir('$$($(BIN)/python -c '$(SITE_PACKAGES)')')" \
		> "$$($(LMEVAL_VENV)/bin/python -c '$(SITE_PACKAGES)')/_genbench_venv.pth"
	$(LMEVAL_VENV)/bin/python -m pip install --upgrade --quiet pip
	$(LMEVAL_VENV)/bin/python -m pip install --quiet -c constraints.txt $(LMEVAL_PINS) \
		$$($(BIN)/python -c 'import importlib.metadata as m; print(*(f"{n}=={m.version(n)}" for n in ("torch", "transformers", "tokenizers")))')
	touch $(LMEVAL_STAMP)

lmeval-venv: $(LMEVAL_STAMP)

## Run the main job on embedded defaults: every registry task, zero- and few-shot, baseline predictors
## (also as results files in the format of `genbench-cli run`, under demo_results/results).
demo: $(STAMP)
	$(OFFLINE) $(BIN)/genbench-cli demo --output-dir demo_results --results-dir demo_results/results

## Run the whole test suite (offline), on two worker processes (pytest-xdist). GENBENCH_LMEVAL_PYTHON makes the
## lm-evaluation-harness parity test fail, not skip, if its venv is missing.
test: $(STAMP) $(LMEVAL_STAMP)
	@echo "make test: about 5 minutes from a fresh clone on two free cores (the suite itself about 3.5; longer on a busy machine); the last line sums up the skipped tests."
	$(OFFLINE) GENBENCH_LMEVAL_PYTHON=$(abspath $(LMEVAL_VENV))/bin/python $(BIN)/python -m pytest -q -n 2

## The original GenBench framework's own suites against this package: ORIGINAL_REPOS names local checkouts of
## github.com/GenBench/genbench_cbt and genbench_cbt_2023, separated by ':' (the tests skip, saying so, without them).
ORIGINAL_REPOS ?= /tmp/orig/genbench_cbt:/tmp/orig/genbench_cbt_2023
test-original: $(STAMP)
	$(OFFLINE) GENBENCH_ORIGINAL_REPOS=$(ORIGINAL_REPOS) $(BIN)/python -m pytest -q tests/compat

## ruff, the architecture's import contracts (import-linter, [tool.importlinter] in pyproject.toml), and zizmor on the
## GitHub workflows (every finding, the pedantic persona; offline: no GitHub API, no token)
check-quality: $(STAMP)
	$(BIN)/ruff check src tests benchmarks .github
	$(BIN)/ruff format --check src tests benchmarks .github
	$(BIN)/lint-imports --config pyproject.toml
	$(BIN)/zizmor --offline --persona=pedantic .github/workflows

fix-style: $(STAMP)
	$(BIN)/ruff check --fix src tests benchmarks .github
	$(BIN)/ruff format src tests benchmarks .github

typecheck: $(STAMP)
	$(BIN)/mypy

## Performance benchmarks, each against its real anchor measured in the same run; results go to benchmarks/results/.
## The original GenBench framework runs from a checkout of github.com/GenBench/genbench_cbt named by
## GENBENCH_ORIG_SRC (put on its PYTHONPATH, left untouched), in a venv with its pins (`make bench-anchors`);
## without it, that anchor is skipped.
GENBENCH_ORIG_SRC ?= $(firstword $(subst :, ,$(ORIGINAL_REPOS)))
export GENBENCH_ORIG_SRC
ANCHORS := .bench-anchors
ORIG_VENV := $(ANCHORS)/genbench-orig
ORIG_PINS := "datasets==2.20.0" "numpy<2" "pyarrow==16.1.0" "pandas<2.3" "evaluate==0.4.2" "jsonnet>=0.20" "dataclass_factory>=2.16" \
	"click>=8.1" "scikit-learn" "statsmodels>=0.14" "typing_extensions>=4.6"

bench-anchors:
	@if [ -z "$(GENBENCH_ORIG_SRC)" ] || [ ! -f "$(GENBENCH_ORIG_SRC)/setup.py" ]; then \
		echo "bench-anchors: set GENBENCH_ORIG_SRC to a checkout of github.com/GenBench/genbench_cbt" \
		"to benchmark against the original framework; skipping it"; \
	else \
		test -x $(ORIG_VENV)/bin/python || $(PYTHON) -m venv $(ORIG_VENV); \
		$(ORIG_VENV)/bin/python -m pip install --quiet $(ORIG_PINS); \
	fi

bench: $(STAMP) bench-anchors
	$(OFFLINE) $(BIN)/python benchmarks/prompt_preparation.py
	$(OFFLINE) $(BIN)/python benchmarks/reranking.py
	$(OFFLINE) $(BIN)/python benchmarks/contamination.py
	$(OFFLINE) $(BIN)/python benchmarks/registry.py --json benchmarks/results/registry.json
	$(OFFLINE) $(BIN)/python benchmarks/results_reading.py
	$(OFFLINE) $(BIN)/python benchmarks/request_cache_open.py
	$(OFFLINE) $(BIN)/python benchmarks/per_sample_scoring.py
	$(OFFLINE) $(BIN)/python benchmarks/shift.py
	$(BIN)/python benchmarks/render_docs.py

## The disk size of each install (core, every extra, the original framework from GENBENCH_ORIG_SRC) in fresh venvs:
## benchmarks/results/install_size.json and the table of docs/getting_started.md (about 10 minutes).
install-size: $(STAMP)
	$(BIN)/python benchmarks/install_size.py

## Build the documentation site (strict: broken links and missing pages fail).
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) .venvs demo_results build dist src/*.egg-info
