-- The board history of the database this ingest replaces (attached read-only as
-- previous_warehouse by etl/board_history.py), copied into the new one as it was.
INSERT INTO leaderboard_history
SELECT ingest_seq, ingest_id, benchmark, mode, model, run_id, score, rank, n_questions
FROM previous_warehouse.leaderboard_history;
