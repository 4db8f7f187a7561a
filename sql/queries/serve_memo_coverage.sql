-- Coverage of every run (the coverage view): questions present against expected, errors;
-- computed once per warehouse file by the explorer.
SELECT * FROM coverage ORDER BY is_archived, benchmark, mode, model, run_id
