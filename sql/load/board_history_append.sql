-- This ingest's overall boards (view leaderboard), appended to leaderboard_history as the
-- next ingest_seq. $ingest_id: the ingest building the database.
INSERT INTO leaderboard_history
SELECT
    (SELECT coalesce(max(ingest_seq), 0) + 1 FROM leaderboard_history) AS ingest_seq,
    $ingest_id AS ingest_id,
    benchmark,
    mode,
    model,
    run_id,
    score,
    rank,
    n_questions
FROM leaderboard;
