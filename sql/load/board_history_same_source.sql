-- Whether an update may keep the last ingest's board rows (etl/board_history.py): that
-- ingest is the one that published the database being updated (published_ingest, read by
-- the load before it rewrote the table ingests), and the table scorers, which every board
-- reads and the Inspect step rewrites, is what it was (loaded_scorers).
SELECT
    (SELECT ingest_id FROM leaderboard_history
     WHERE ingest_seq = (SELECT max(ingest_seq) FROM leaderboard_history)
     LIMIT 1) IS NOT DISTINCT FROM (SELECT ingest_id FROM published_ingest)
    AND NOT EXISTS (SELECT * FROM scorers EXCEPT SELECT * FROM loaded_scorers)
    AND NOT EXISTS (SELECT * FROM loaded_scorers EXCEPT SELECT * FROM scorers);
