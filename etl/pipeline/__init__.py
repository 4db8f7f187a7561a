"""The ingest pipeline: a results tree in, one DuckDB warehouse out. Data moves one way,
one module per stage:

    discover   walk the tree, classify every path (kind, run, copy rank)      discover.py
    plan       per file: reuse its staged rows, or stage it (whole or from     plan.py,
               where it stopped growing), against which preferred copies      copies.py,
               (the parse cache <db>.cache/ is owned by cache.py)              cache.py
    stage      parse each file into Parquet in the cache, in worker processes  stage.py,
               (results files in segments; the emitter writes the rows)       segments.py,
                                                                              emitter.py,
                                                                              workers.py
    load       copy the published database (or start empty) and replace the   load.py
               rows of the changed files
    derive     tables and views computed from the rows (best@k, comparisons)  derive.py
    publish    atomic rename under a lock; Ctrl-C and crash rules             publish.py,
                                                                              interrupts.py

ingest.py drives the stages (`run_ingest`), watch.py repeats it as a tree changes, and
errors.py holds the typed errors every stage raises. Nothing here draws on a terminal: the
command line (etl/cli/) passes progress in and turns errors into messages."""
