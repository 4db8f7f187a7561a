-- The rows of the last ingest's boards that an update keeps (etl/board_history.py): every
-- board but those of history_boards (board_history_boards.sql), as ingest $ingest_seq. Its
-- inputs did not change since the last ingest computed it from view leaderboard, so its rows
-- are the ones that view gives now.
INSERT INTO leaderboard_history
SELECT $ingest_seq, $ingest_id, h.benchmark, h.mode, h.model, h.run_id, h.score, h.rank,
       h.n_questions
FROM leaderboard_history AS h
WHERE h.ingest_seq = $ingest_seq - 1
    AND NOT EXISTS (SELECT 1 FROM history_boards AS b
                    WHERE b.benchmark IS NOT DISTINCT FROM h.benchmark
                        AND b.mode IS NOT DISTINCT FROM h.mode);
