-- The image blocks of one trajectory ($run, $qid, $run_index): whether the data was kept
-- (ingest --keep-images), never the data itself (served one image at a time).
SELECT msg_idx, block_idx, media_type, data_sha256, data_chars, data IS NOT NULL AS kept
FROM images
WHERE run_id = $run AND qid = $qid AND run_index = $run_index
ORDER BY msg_idx, block_idx
