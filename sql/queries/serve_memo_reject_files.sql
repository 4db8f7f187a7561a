-- Files that were not loaded or lost lines: why (kind, copy rank), and their reject counts;
-- computed once per warehouse file by the explorer.
SELECT f.path, f.kind, f.run_id, f.loaded, f.copy_rank, f.n_lines, f.n_rows, f.n_rejected,
       f.n_repaired, f.n_duplicates
FROM files AS f
WHERE NOT coalesce(f.loaded, false) OR f.n_rejected > 0 OR f.n_repaired > 0
ORDER BY f.n_rejected DESC NULLS LAST, f.path
