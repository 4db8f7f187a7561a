-- Bookkeeping once every row is in: duplicates per file, results per run, model names.
UPDATE files SET n_duplicates = d.n
FROM (SELECT file_id, count(*) AS n FROM result_copies WHERE pick > 1 GROUP BY file_id) AS d
WHERE files.file_id = d.file_id;

UPDATE runs SET n_results = r.n
FROM (SELECT run_id, count(*) AS n FROM results GROUP BY run_id) AS r
WHERE runs.run_id = r.run_id;

-- Backend ids seen in records, and the model names Inspect AI logs give (<provider>/<model>),
-- resolve to the model of the run that produced them (a log's own name first: a backend
-- id is what one call answered with).
INSERT INTO model_aliases
SELECT DISTINCT ON (alias) lower(name) AS alias, model
FROM (SELECT backend_model_id AS name, model, 1 AS preference FROM results
      UNION ALL
      SELECT inspect_model AS name, model, 0 AS preference FROM inspect_logs)
WHERE name IS NOT NULL AND model IS NOT NULL
  AND lower(name) NOT IN (SELECT alias FROM model_aliases)
ORDER BY alias, preference, model;

INSERT INTO models
SELECT DISTINCT model, model FROM runs
WHERE model IS NOT NULL AND model NOT IN (SELECT model FROM models);
