-- One board of this ingest (view leaderboard, benchmark $benchmark and mode $mode), appended
-- to leaderboard_history as ingest $ingest_seq: what board_history_append.sql writes for that
-- board. The board's values are bound, so the filter reaches the scans of the views (one
-- board of a bench tree: 0.2 s of CPU, every board 0.4 s).
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
WHERE benchmark = $benchmark AND mode = $mode;
