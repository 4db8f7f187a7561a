# Every target builds the virtual environment it needs, so a fresh machine needs only python3.
# Three layers, each with its own stamp: what running needs (make ingest, serve, report), the
# test stack on top (make test, lint, fuzz) and the bench's peer (make bench). `make ingest`
# installs nothing for tests; `make test` works from nothing and after `make ingest` alike.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
ROOT   ?= demo/tree
DB     ?= warehouse.duckdb
SEED   ?= 7
# What running needs beyond the package: the explorer (etl serve) and pandas (the notebook
# API's DataFrames). The extras are defined in pyproject.toml.
RUN_EXTRAS  := serve,pandas
RUN_STAMP   := $(VENV)/.installed-run
TEST_STAMP  := $(VENV)/.installed-test
BENCH_STAMP := $(VENV)/.installed-bench
MAKE_VENV   := test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)

.PHONY: help venv ingest demo test lint bench bench-large bench-serve bench-width serve report \
	clean fuzz crawl \
	wheel-check

help:
	@echo "make ingest            generate the demo tree (once) and ingest it into $(DB)"
	@echo "make ingest ROOT=DIR DB=FILE   ingest any results tree"
	@echo "make test              install the test stack and run the test suite"
	@echo "make venv              the development environment (.venv with the test stack)"
	@echo "make lint              ruff"
	@echo "make bench             the ingest vs the parse floor and a naive load, on three tree shapes"
	@echo "make bench-large       the same on two 6.5 GB trees, ten cold builds each (about an hour)"
	@echo "make report            write build/report.html from $(DB)"
	@echo "make fuzz              every property on its long budget, then fuzz the ingest, for FUZZ_MINUTES (20)"
	@echo "make crawl             follow every link of the explorer on the demo tree"
	@echo "make wheel-check       build the wheel, install it in a fresh venv, ingest a demo tree"
	@echo "make serve             browse $(DB) at http://127.0.0.1:8765/ (etl serve)"
	@echo "make bench-serve       page latencies of etl serve on a bench-scale warehouse"
	@echo "make bench-width       ingest 100 runs on one board and 20,000 run directories"

venv: $(TEST_STAMP)

$(RUN_STAMP): pyproject.toml
	$(MAKE_VENV)
	$(BIN)/python -m pip install --quiet -e '.[$(RUN_EXTRAS)]'
	touch $@

# One pip call from nothing; the test stack includes what running needs, so the run stamp
# is brought up to date with it.
$(TEST_STAMP): pyproject.toml
	$(MAKE_VENV)
	$(BIN)/python -m pip install --quiet -e '.[$(RUN_EXTRAS),dev]'
	touch $(RUN_STAMP) $@

# The demo tree is generated once; delete demo/ to regenerate it.
demo/.synth-done: | $(RUN_STAMP)
	$(BIN)/etl synth demo/tree --scale demo --seed $(SEED) --damage
	touch $@

demo: demo/.synth-done

ifeq ($(ROOT),demo/tree)
ingest: demo/.synth-done
else
ingest: $(RUN_STAMP)
endif
	$(BIN)/etl ingest $(ROOT) --db $(DB)

# PYTEST_ARGS narrows the run (e.g. PYTEST_ARGS="tests/project/test_docs.py -x").
PYTEST_ARGS ?=
test: $(TEST_STAMP)
	$(BIN)/ruff check etl tests
	$(BIN)/python -m pytest -q -n auto --dist loadfile --durations=25 $(PYTEST_ARGS)

lint: $(TEST_STAMP)
	$(BIN)/ruff check etl tests

# The bench extra (dlt, for the peer row) is installed on first use; BENCH_ARGS are passed on
# (e.g. BENCH_ARGS="--gb 0.3 --dlt"; see `etl bench --help`).
BENCH_ARGS ?=

$(BENCH_STAMP): pyproject.toml $(RUN_STAMP)
	$(BIN)/python -m pip install --quiet -e '.[$(RUN_EXTRAS),bench]'
	touch $@

bench: $(BENCH_STAMP)
	$(BIN)/etl bench --data bench-data $(BENCH_ARGS)

# Trees of 6.5 GB, the size at which the load's memory first failed (many copies of each
# result, and megabyte tool results), each built cold ten times at the default settings:
# the out-of-memory count and the peak memory of every build (about an hour on 2 cores:
# twenty cold builds took 28 minutes).
LARGE_TREES ?= many-copies:17:6.5,long-tools:11:6.5
bench-large: $(BENCH_STAMP)
	$(BIN)/etl bench --data bench-data --trees $(LARGE_TREES) --scaling-gb '' \
		--cold-builds 10 $(BENCH_ARGS)

# Every property on its long, random budget, then the ingest fuzzer for the rest of the time
# (make test runs fixed, derandomized budgets: tests/budgets.py); a failing tree lands in
# .fuzz-failures/ (see tests/fuzz_run.py to keep it as a test).
FUZZ_MINUTES ?= 20
fuzz: $(TEST_STAMP)
	$(BIN)/python -m tests.fuzz_run --minutes $(FUZZ_MINUTES)

wheel-check:
	PYTHON=$(PYTHON) .ci/wheel-check

serve: $(RUN_STAMP)
	$(BIN)/etl serve --db $(DB)

# Every link of the explorer, followed from its front page, on the demo tree clean and
# damaged, images kept (about 20,000 pages each; `make test` crawls a small copy of the demo
# tree in full and ten pages of each kind of the demo tree): exit 1 when one does not answer
# 200.
crawl: $(TEST_STAMP)
	rm -rf build/crawl && mkdir -p build/crawl
	$(BIN)/etl synth build/crawl/clean --scale demo --seed 11
	$(BIN)/etl synth build/crawl/damaged --scale demo --seed 11 --damage
	$(BIN)/etl ingest build/crawl/clean --db build/crawl/clean.duckdb --keep-images --quiet
	$(BIN)/etl ingest build/crawl/damaged --db build/crawl/damaged.duckdb --keep-images --quiet
	$(BIN)/python -m tests.serve.crawl --db build/crawl/clean.duckdb
	$(BIN)/python -m tests.serve.crawl --db build/crawl/damaged.duckdb

# Width: 100 runs of one board and 20,000 run directories, timed, peak memory against the
# bound of docs/SAFETY.md (long: the 20,000 directories take minutes). WIDTH_ARGS are passed
# on (e.g. WIDTH_ARGS="--dirs 2000"; see python -m tests.width_bench --help).
WIDTH_ARGS ?=
bench-width: $(TEST_STAMP)
	$(BIN)/python -m tests.width_bench $(WIDTH_ARGS)

# A 1 GB bench-scale tree generated and ingested once (delete bench-data/serve* to redo).
bench-serve: $(RUN_STAMP)
	test -f bench-data/serve.duckdb || { \
		$(BIN)/etl synth bench-data/serve-tree --scale bench --bench-gb 1 --force && \
		$(BIN)/etl ingest bench-data/serve-tree --db bench-data/serve.duckdb --quiet; }
	$(BIN)/python -m etl.cli.serve_bench --db bench-data/serve.duckdb

# Under build/ (ignored, removed by make clean) like every other generated file: a report in
# the work tree would show up in `git status` and be committed by a careless `git add .`.
report: ingest
	$(BIN)/etl report --db $(DB) --out build/report.html

clean:
	rm -rf $(VENV) demo build bench-data *.duckdb *.duckdb.cache
