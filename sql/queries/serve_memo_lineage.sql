-- Every archived run, what superseded it and how the answers changed (archive_lineage),
-- computed once per warehouse file by the explorer.
SELECT * FROM archive_lineage ORDER BY benchmark, mode, model, archive_name
