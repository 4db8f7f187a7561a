# Every target builds the virtual environment it needs, so a fresh machine needs only python3.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
ROOT   ?= demo/tree
DB     ?= warehouse.duckdb
SEED   ?= 7

.PHONY: help venv ingest demo test lint bench bench-serve bench-width serve report clean fuzz \
	wheel-check

help:
	@echo "make ingest            generate the demo tree (once) and ingest it into $(DB)"
	@echo "make ingest ROOT=DIR DB=FILE   ingest any results tree"
	@echo "make test              run the test suite"
	@echo "make lint              ruff"
	@echo "make bench             the ingest vs the parse floor and a naive load, on two tree shapes"
	@echo "make report            write report.html from $(DB)"
	@echo "make fuzz              fuzz the ingest with generated trees for FUZZ_MINUTES (20)"
	@echo "make wheel-check       build the wheel, install it in a fresh venv, ingest a demo tree"
	@echo "make serve             browse $(DB) at http://127.0.0.1:8765/ (etl serve)"
	@echo "make bench-serve       page latencies of etl serve on a bench-scale warehouse"
	@echo "make bench-width       ingest 100 runs on one board and 20,000 run directories"

venv: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# The demo tree is generated once; delete demo/ to regenerate it.
demo/.synth-done: | $(STAMP)
	$(BIN)/etl synth demo/tree --scale demo --seed $(SEED) --damage
	touch $@

demo: demo/.synth-done

ifeq ($(ROOT),demo/tree)
ingest: demo/.synth-done
else
ingest: $(STAMP)
endif
	$(BIN)/etl ingest $(ROOT) --db $(DB)

test: $(STAMP)
	$(BIN)/ruff check etl tests
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check etl tests

# The bench extra (dlt, for the peer row) is installed on first use; BENCH_ARGS are passed on
# (e.g. BENCH_ARGS="--gb 0.3 --dlt"; see `etl bench --help`).
BENCH_ARGS ?=
BENCH_STAMP := $(VENV)/.installed-bench

$(BENCH_STAMP): pyproject.toml | $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	touch $@

bench: $(BENCH_STAMP)
	$(BIN)/etl bench --data bench-data $(BENCH_ARGS)

# A long randomized run of the ingest fuzzer (make test runs a fixed, derandomized budget);
# a failing tree lands in .fuzz-failures/ (see tests/fuzz_run.py to keep it as a test).
FUZZ_MINUTES ?= 20
fuzz: $(STAMP)
	$(BIN)/python -m tests.fuzz_run --minutes $(FUZZ_MINUTES)

wheel-check:
	PYTHON=$(PYTHON) .ci/wheel-check

serve: $(STAMP)
	$(BIN)/etl serve --db $(DB)

# Width: 100 runs of one board and 20,000 run directories, timed, peak memory against the
# bound of docs/SAFETY.md (long: the 20,000 directories take minutes). WIDTH_ARGS are passed
# on (e.g. WIDTH_ARGS="--dirs 2000"; see python -m tests.width_bench --help).
WIDTH_ARGS ?=
bench-width: $(STAMP)
	$(BIN)/python -m tests.width_bench $(WIDTH_ARGS)

# A 1 GB bench-scale tree generated and ingested once (delete bench-data/serve* to redo).
bench-serve: $(STAMP)
	test -f bench-data/serve.duckdb || { \
		$(BIN)/etl synth bench-data/serve-tree --scale bench --bench-gb 1 --force && \
		$(BIN)/etl ingest bench-data/serve-tree --db bench-data/serve.duckdb --quiet; }
	$(BIN)/python -m etl.serve.bench --db bench-data/serve.duckdb

report: ingest
	$(BIN)/etl report --db $(DB) --out report.html

clean:
	rm -rf $(VENV) demo build bench-data *.duckdb *.duckdb.cache
