# The README's commands. Everything a newcomer needs is installed from here into .venv.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
PIP := $(PY) -m pip install -q --disable-pip-version-check

.PHONY: bench demo test docs lab export check-export readme-check nbtest nbtest-slow pytest test-cuda-emulated browser-deps readme book-stats book-baseline clean-docs clean

## make demo: install lit_torch into .venv and run the main job: a seq2seq Transformer that rewrites dates as ISO dates
demo: $(VENV)/.docs
	$(PY) examples/train_dates.py

$(VENV)/.base: $(VENV)/bin/python setup.py settings.ini
	$(PIP) -e .
	touch $@

## make test: everything CI checks, in the order a failure is cheapest to find
test: $(VENV)/.dev check-export readme-check nbtest docs browser-deps pytest test-cuda-emulated

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip

$(VENV)/.docs: $(VENV)/bin/python setup.py settings.ini
	$(PIP) -e ".[docs]"
	touch $@ $(VENV)/.base

$(VENV)/.dev: $(VENV)/bin/python setup.py settings.ini
	$(PIP) -e ".[dev]"
	touch $@ $(VENV)/.docs $(VENV)/.base

## the package must be exactly what the notebooks export, and exporting twice must change nothing
check-export: $(VENV)/.docs
	@rm -rf .export-check && cp -r lit_torch .export-check
	@$(BIN)/nbdev_export
	@if diff -r -q -x __pycache__ .export-check lit_torch; then echo "nbdev_export: lit_torch/ matches the notebooks"; \
	 else rm -rf .export-check; echo "nbdev_export changed lit_torch/: the package did not match its notebooks (see git diff lit_torch)"; exit 1; fi
	@$(BIN)/nbdev_export
	@if diff -r -q -x __pycache__ .export-check lit_torch; then rm -rf .export-check; echo "nbdev_export again: no change"; \
	 else rm -rf .export-check; echo "a second nbdev_export changed lit_torch/: a notebook adds to a module whose owner exports after it"; exit 1; fi

export: $(VENV)/.docs
	$(BIN)/nbdev_export

readme: $(VENV)/.docs
	$(PY) tools/docs.py readme

readme-check: $(VENV)/.docs
	$(PY) tools/docs.py readme --check

## each notebook in a fresh interpreter: a notebook re-defines its module's functions on shared classes like Tensor
nbtest: $(VENV)/.dev
	ls nbs/*.ipynb | xargs -P 2 -I{} sh -c '$(BIN)/nbdev_test --path {} >/dev/null && echo "nbdev_test {}: ok"'

## make nbtest-slow: every notebook with its long runs too (cells flagged `#| slow`, like the full date demo); not part of make test
nbtest-slow: $(VENV)/.dev
	ls nbs/*.ipynb | xargs -P 2 -I{} sh -c '$(BIN)/nbdev_test --flags slow --path {} >/dev/null && echo "nbdev_test --flags slow {}: ok"'

## make docs: nbdev's Quarto site where Quarto exists, else the same site with smalldocs
docs: $(VENV)/.docs
	$(PY) tools/docs.py build

browser-deps:
	@if command -v chromium >/dev/null 2>&1; then echo "chromium: $$(command -v chromium)"; \
	 elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	   (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) || echo "could not install chromium: the browser test will skip"; \
	 else echo "chromium is missing and this is not root: the browser test will skip"; fi

pytest: $(VENV)/.dev
	$(PY) -m pytest -q tests

## make test-cuda-emulated: the CUDA tests on two emulated GPUs, cuda:0 and cuda:1 (tests/fake_cupy, a strict CuPy on NumPy; no GPU needed)
CUDA_TESTS := tests/test_fake_cupy.py tests/test_cuda.py tests/test_cuda_nn.py tests/test_cuda_distributed.py tests/test_devices.py tests/test_backend.py \
	tests/test_transformer.py::test_transformer_on_device tests/test_data_parallel.py::test_cuda_same_as_plain
test-cuda-emulated: $(VENV)/.dev
	LIT_TORCH_EMULATE_CUDA=1 $(PY) -m pytest -q $(CUDA_TESTS)

## make bench: every benchmarks/bench_*.py side by side with torch, one table (workload | torch | lit_torch | ratio | floor)
bench: $(VENV)/.dev
	$(PY) benchmarks/run_all.py

## make book-stats: issue 18's measures per chapter (export-cell lengths, checks after them, pictures, PyTorch comparisons), then the totals
book-stats:
	@$(if $(wildcard $(PY)),$(PY),$(PYTHON)) tools/book_stats.py --long

## make book-baseline: after the book got better, keep its new numbers in tests/book_baseline.json (tests/test_book.py holds them)
book-baseline:
	@$(if $(wildcard $(PY)),$(PY),$(PYTHON)) tools/book_stats.py --baseline

## make lab: JupyterLab on the notebooks
lab: $(VENV)/.dev
	$(BIN)/jupyter lab nbs

clean-docs:
	rm -rf _proc _docs

clean: clean-docs
	rm -rf $(VENV) build dist *.egg-info .export-check
