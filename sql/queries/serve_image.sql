-- One kept image block ($run, $qid, $run_index, $msg_idx, $block_idx): media type and base64.
SELECT media_type, data
FROM images
WHERE run_id = $run AND qid = $qid AND run_index = $run_index AND msg_idx = $msg_idx
    AND block_idx = $block_idx
