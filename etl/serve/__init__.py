"""The local web explorer of `etl serve` (app.py: pages; live.py: the warehouse that follows
an ingest's rename; command.py: the CLI command; bench.py: page latencies)."""
