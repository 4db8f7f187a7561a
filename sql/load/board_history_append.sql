-- This ingest's overall boards (view leaderboard), appended to leaderboard_history as
-- ingest $ingest_seq. $ingest_id: the ingest building the database.
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
FROM leaderboard;
