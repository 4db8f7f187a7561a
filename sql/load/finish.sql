-- Bookkeeping once every row is in: duplicates per file, results per run, model names.
UPDATE files SET n_duplicates = d.n
FROM (SELECT file_id, count(*) AS n FROM result_copies WHERE pick > 1 GROUP BY file_id) AS d
WHERE files.file_id = d.file_id;

UPDATE runs SET n_results = r.n
FROM (SELECT run_id, count(*) AS n FROM results GROUP BY run_id) AS r
WHERE runs.run_id = r.run_id;

-- Backend ids seen in records resolve to the model of the run that produced them.
INSERT INTO model_aliases
SELECT DISTINCT ON (alias) lower(backend_model_id) AS alias, model
FROM results
WHERE backend_model_id IS NOT NULL AND model IS NOT NULL
  AND lower(backend_model_id) NOT IN (SELECT alias FROM model_aliases)
ORDER BY alias, model;

INSERT INTO models
SELECT DISTINCT model, model FROM runs
WHERE model IS NOT NULL AND model NOT IN (SELECT model FROM models);
