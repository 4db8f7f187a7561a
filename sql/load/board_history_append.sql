-- This ingest's overall boards (view leaderboard), appended to leaderboard_history as ingest
-- $ingest_seq. $ingest_id: the ingest building the database. Every board when
-- $every_board, else the one of benchmark $benchmark and mode $mode (etl/board_history.py
-- runs it per board an update recomputes): the values are bound before the statement is
-- planned, so the filter reaches the scans of the views (one board of a bench tree: 0.2 s
-- of CPU, every board 0.4 s).
INSERT INTO leaderboard_history
SELECT
    $ingest_seq AS ingest_seq,
    $ingest_id AS ingest_id,
    benchmark,
    mode,
    model,
    run_id,
    score,
    rank,
    n_questions
FROM leaderboard
WHERE $every_board OR (benchmark = $benchmark AND mode = $mode);
