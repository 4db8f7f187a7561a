-- Uncertainty the mean and its naive interval hide (docs/STATISTICS.md gives every formula
-- and its source):
--   leaderboard_clustered (+ _by_group, _by_task)  standard errors clustered by patient
--                                                   (board_cells of the default board)
--   leaderboard_reliability                         pass^k, worst-of-k and flip rate over
--                                                   the runs of each question
--   leaderboard_changes                             what moved since the previous ingest
-- Written in the SQL every export engine runs (docs/EXPORT.md): no list functions, no
-- GROUPING SETS.

CREATE OR REPLACE VIEW leaderboard_clustered_cells AS
-- the default board's cells of board_cells (sql/10_leaderboard.sql computes them, for every
-- board), under the names of this family
SELECT
    benchmark,
    mode,
    model,
    run_id,
    level AS scope,
    task_group,
    task,
    n_questions,
    n_clusters,
    score,
    se_naive,
    se_clustered,
    design_effect,
    ci_low,
    ci_high,
    single_cluster
FROM board_cells
WHERE board_scorer = 'default' AND question_set = 'all';

COMMENT ON VIEW leaderboard_clustered_cells IS 'Mean per-question score of every leaderboard run per cell (scope overall, group = one task group, task = one task) with its standard error naive and clustered by patient (question_clusters), Miller 2024 without small-sample correction: se_clustered = sqrt(sum over clusters c of (sum over questions i of c of (s_i - m))^2) / n. The default board of board_cells (all questions); base of leaderboard_clustered, leaderboard_clustered_by_group, leaderboard_clustered_by_task (docs/STATISTICS.md).';
COMMENT ON COLUMN leaderboard_clustered_cells.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_clustered_cells.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_clustered_cells.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_clustered_cells.run_id IS 'The leaderboard run.';
COMMENT ON COLUMN leaderboard_clustered_cells.scope IS 'overall, group or task.';
COMMENT ON COLUMN leaderboard_clustered_cells.task_group IS 'Task group of the cell; NULL for scope overall.';
COMMENT ON COLUMN leaderboard_clustered_cells.task IS 'Task of the cell; NULL unless scope is task.';
COMMENT ON COLUMN leaderboard_clustered_cells.n_questions IS 'Questions of the cell (n).';
COMMENT ON COLUMN leaderboard_clustered_cells.n_clusters IS 'Distinct patients (clusters) among them.';
COMMENT ON COLUMN leaderboard_clustered_cells.score IS 'Mean per-question score m of the cell (the leaderboard score for scope overall).';
COMMENT ON COLUMN leaderboard_clustered_cells.se_naive IS 'Sample standard deviation (n - 1) / sqrt(n): the standard error if questions were independent; NULL for n = 1.';
COMMENT ON COLUMN leaderboard_clustered_cells.se_clustered IS 'Standard error clustered by patient (see the view comment); 0 for a single cluster (see single_cluster).';
COMMENT ON COLUMN leaderboard_clustered_cells.design_effect IS '(se_clustered / se_naive)^2: how many times the variance grows because questions of one patient move together; NULL when se_naive is 0 or NULL or there is a single cluster.';
COMMENT ON COLUMN leaderboard_clustered_cells.ci_low IS 'm - 1.959964 se_clustered (95%, not clipped); NULL for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered_cells.ci_high IS 'm + 1.959964 se_clustered (95%, not clipped); NULL for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered_cells.single_cluster IS 'True when every question of the cell belongs to one patient: se_clustered is 0 by the formula, which is no certainty; no interval is given.';

CREATE OR REPLACE VIEW leaderboard_clustered AS
SELECT
    benchmark, mode, model, run_id, n_questions, n_clusters, score, se_naive, se_clustered,
    design_effect, ci_low, ci_high, single_cluster
FROM leaderboard_clustered_cells
WHERE scope = 'overall';

COMMENT ON VIEW leaderboard_clustered IS 'Every leaderboard run with its score''s standard error naive and clustered by patient (Miller 2024, "Adding Error Bars to Evals": questions about one patient are not independent, so the naive interval is too narrow) and the 95% clustered interval score +- 1.959964 se_clustered, the default interval of the report and the explorer. Formulas and sources: docs/STATISTICS.md.';
COMMENT ON COLUMN leaderboard_clustered.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN leaderboard_clustered.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_clustered.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_clustered.run_id IS 'The leaderboard run.';
COMMENT ON COLUMN leaderboard_clustered.n_questions IS 'Questions behind the score (n).';
COMMENT ON COLUMN leaderboard_clustered.n_clusters IS 'Distinct patients among them (a question without a patient id is its own cluster).';
COMMENT ON COLUMN leaderboard_clustered.score IS 'Leaderboard score m: mean of the per-question scores.';
COMMENT ON COLUMN leaderboard_clustered.se_naive IS 'Sample standard deviation (n - 1) / sqrt(n); NULL for n = 1.';
COMMENT ON COLUMN leaderboard_clustered.se_clustered IS 'sqrt(sum over clusters c of (sum over questions i of c of (s_i - m))^2) / n; 0 for a single cluster (flagged by single_cluster).';
COMMENT ON COLUMN leaderboard_clustered.design_effect IS '(se_clustered / se_naive)^2; NULL when se_naive is 0 or NULL or for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered.ci_low IS 'm - 1.959964 se_clustered (not clipped); NULL for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered.ci_high IS 'm + 1.959964 se_clustered (not clipped); NULL for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered.single_cluster IS 'True when all questions belong to one patient: the clustered standard error is 0 by the formula, which is no certainty, so no interval is given.';

CREATE OR REPLACE VIEW leaderboard_clustered_by_group AS
SELECT
    benchmark, mode, model, run_id, task_group, n_questions, n_clusters, score, se_naive,
    se_clustered, design_effect, ci_low, ci_high, single_cluster
FROM leaderboard_clustered_cells
WHERE scope = 'group';

COMMENT ON VIEW leaderboard_clustered_by_group IS 'leaderboard_clustered per task group: the same standard errors and interval over the questions of one task group of a run (the mean is leaderboard_by_group.score).';
COMMENT ON COLUMN leaderboard_clustered_by_group.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN leaderboard_clustered_by_group.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_clustered_by_group.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_clustered_by_group.run_id IS 'The leaderboard run.';
COMMENT ON COLUMN leaderboard_clustered_by_group.task_group IS 'Task group of the cell.';
COMMENT ON COLUMN leaderboard_clustered_by_group.n_questions IS 'Questions of the group (n).';
COMMENT ON COLUMN leaderboard_clustered_by_group.n_clusters IS 'Distinct patients among them.';
COMMENT ON COLUMN leaderboard_clustered_by_group.score IS 'Mean per-question score m of the group.';
COMMENT ON COLUMN leaderboard_clustered_by_group.se_naive IS 'Sample standard deviation (n - 1) / sqrt(n); NULL for n = 1.';
COMMENT ON COLUMN leaderboard_clustered_by_group.se_clustered IS 'Clustered standard error (see leaderboard_clustered); 0 for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered_by_group.design_effect IS '(se_clustered / se_naive)^2; NULL when undefined or for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered_by_group.ci_low IS 'm - 1.959964 se_clustered; NULL for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered_by_group.ci_high IS 'm + 1.959964 se_clustered; NULL for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered_by_group.single_cluster IS 'True when the group''s questions all belong to one patient (no interval given).';

CREATE OR REPLACE VIEW leaderboard_clustered_by_task AS
SELECT
    benchmark, mode, model, run_id, task_group, task, n_questions, n_clusters, score,
    se_naive, se_clustered, design_effect, ci_low, ci_high, single_cluster
FROM leaderboard_clustered_cells
WHERE scope = 'task';

COMMENT ON VIEW leaderboard_clustered_by_task IS 'leaderboard_clustered per task: the same standard errors and interval over the questions of one task of a run (the mean is leaderboard_by_task.score).';
COMMENT ON COLUMN leaderboard_clustered_by_task.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN leaderboard_clustered_by_task.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_clustered_by_task.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_clustered_by_task.run_id IS 'The leaderboard run.';
COMMENT ON COLUMN leaderboard_clustered_by_task.task_group IS 'Task group of the task.';
COMMENT ON COLUMN leaderboard_clustered_by_task.task IS 'Task of the cell.';
COMMENT ON COLUMN leaderboard_clustered_by_task.n_questions IS 'Questions of the task (n).';
COMMENT ON COLUMN leaderboard_clustered_by_task.n_clusters IS 'Distinct patients among them.';
COMMENT ON COLUMN leaderboard_clustered_by_task.score IS 'Mean per-question score m of the task.';
COMMENT ON COLUMN leaderboard_clustered_by_task.se_naive IS 'Sample standard deviation (n - 1) / sqrt(n); NULL for n = 1.';
COMMENT ON COLUMN leaderboard_clustered_by_task.se_clustered IS 'Clustered standard error (see leaderboard_clustered); 0 for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered_by_task.design_effect IS '(se_clustered / se_naive)^2; NULL when undefined or for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered_by_task.ci_low IS 'm - 1.959964 se_clustered; NULL for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered_by_task.ci_high IS 'm + 1.959964 se_clustered; NULL for a single cluster.';
COMMENT ON COLUMN leaderboard_clustered_by_task.single_cluster IS 'True when the task''s questions all belong to one patient (no interval given).';

CREATE OR REPLACE VIEW leaderboard_reliability AS
WITH several AS (
    -- runs with several runs of some question
    SELECT DISTINCT run_id
    FROM (SELECT run_id, qid FROM results GROUP BY run_id, qid HAVING count(*) > 1) AS q
),
verdicts AS (
    SELECT q.run_id, q.qid, q.run_index, q.scorer,
        min(q.exact_match) AS exact_match,
        bool_or(q.route = 'llm_judge') AS judged
    FROM question_scores AS q
    JOIN several AS s ON s.run_id = q.run_id
    GROUP BY q.run_id, q.qid, q.run_index, q.scorer
),
attempts AS (
    -- one row per result: its score and whether it is exactly right under the board's
    -- scorer (prediction set = gold set; for an LLM-judge row the judge's verdict); a
    -- result the leaderboard scores 0 (error or incomplete under that scorer's rule) is
    -- not right
    SELECT
        r.run_id, r.benchmark, r.mode, r.model, r.qid, r.score,
        CASE
            WHEN r.score = 0 THEN 0
            WHEN v.judged THEN CASE WHEN r.score >= 1 THEN 1 ELSE 0 END
            WHEN v.exact_match = 1 THEN 1
            ELSE 0
        END AS correct,
        count(*) OVER (PARTITION BY r.run_id, r.qid) AS n_runs,
        -- i-th lowest score of the question's runs (ties by run index)
        row_number() OVER (PARTITION BY r.run_id, r.qid ORDER BY r.score, r.run_index)
            AS score_order
    FROM leaderboard_result_scores AS r
    JOIN several AS s ON s.run_id = r.run_id
    LEFT JOIN verdicts AS v
        ON v.run_id = r.run_id AND v.qid = r.qid AND v.run_index = r.run_index
        AND v.scorer = r.scorer
),
numbers AS (
    SELECT DISTINCT score_order AS i FROM attempts
),
log_factorial AS (
    -- ln(m!) for m = 0 .. the most runs of a question
    SELECT 0 AS m, CAST(0 AS DOUBLE) AS lf
    UNION ALL
    SELECT i AS m, sum(ln(i)) OVER (ORDER BY i ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
        AS lf
    FROM numbers
),
log_comb AS (
    -- ln C(a, b) for 0 <= b <= a
    SELECT a.m AS a, b.m AS b, a.lf - b.lf - d.lf AS lc
    FROM log_factorial AS a
    JOIN log_factorial AS b ON b.m <= a.m
    JOIN log_factorial AS d ON d.m = a.m - b.m
),
questions AS (
    SELECT run_id, benchmark, mode, model, qid, count(*) AS n, sum(correct) AS c
    FROM attempts
    GROUP BY run_id, benchmark, mode, model, qid
),
ks AS (
    -- k = 1 .. the most runs any question of the run has
    SELECT DISTINCT run_id, score_order AS k FROM attempts
),
pass_k AS (
    -- C(c, k) / C(n, k) per question with n >= k (tau-bench's pass^k term)
    SELECT q.run_id, q.qid, k.k,
        CASE WHEN q.c >= k.k THEN exp(cc.lc - cn.lc) ELSE 0.0 END AS pass_hat
    FROM questions AS q
    JOIN ks AS k ON k.run_id = q.run_id AND k.k <= q.n
    JOIN log_comb AS cn ON cn.a = q.n AND cn.b = k.k
    LEFT JOIN log_comb AS cc ON cc.a = q.c AND cc.b = k.k
),
worst_k AS (
    -- expected lowest score of k runs drawn without replacement: the i-th lowest of n is
    -- the lowest with probability C(n - i, k - 1) / C(n, k)
    SELECT a.run_id, a.qid, k.k,
        sum(exp(w.lc - cn.lc) * a.score) AS worst
    FROM attempts AS a
    JOIN ks AS k ON k.run_id = a.run_id AND k.k <= a.n_runs
    JOIN log_comb AS cn ON cn.a = a.n_runs AND cn.b = k.k
    JOIN log_comb AS w ON w.a = a.n_runs - a.score_order AND w.b = k.k - 1
    GROUP BY a.run_id, a.qid, k.k
),
flips AS (
    -- share of the pairs of runs of a question that disagree: c (n - c) / C(n, 2)
    SELECT run_id,
        avg(CAST(c * (n - c) AS DOUBLE) / (CAST(n * (n - 1) AS DOUBLE) / 2)) AS flip_rate
    FROM questions
    WHERE n >= 2
    GROUP BY run_id
)
SELECT
    q.benchmark,
    q.mode,
    q.model,
    q.run_id,
    p.k,
    count(*) AS n_questions,
    avg(p.pass_hat) AS pass_hat_k,
    avg(w.worst) AS worst_of_k,
    f.flip_rate
FROM pass_k AS p
JOIN worst_k AS w ON w.run_id = p.run_id AND w.qid = p.qid AND w.k = p.k
JOIN questions AS q ON q.run_id = p.run_id AND q.qid = p.qid
LEFT JOIN flips AS f ON f.run_id = p.run_id
GROUP BY q.benchmark, q.mode, q.model, q.run_id, p.k, f.flip_rate;

COMMENT ON VIEW leaderboard_reliability IS 'Reliability over repeated runs, for leaderboard runs with several runs of some question, k = 1 .. the most runs of a question: pass^k as tau-bench defines it (Yao et al. 2024: the mean over questions of C(c, k) / C(n, k), c of the n runs of a question exactly right), the expected worst score of k runs, and the flip rate. A question counts for k when it has at least k runs. A run is exactly right when its prediction set equals the gold set under the board''s scorer (the scorer''s exact_match; an LLM-judge row: its verdict) and the leaderboard does not score it 0. Formulas: docs/STATISTICS.md.';
COMMENT ON COLUMN leaderboard_reliability.benchmark IS 'Benchmark of the run.';
COMMENT ON COLUMN leaderboard_reliability.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_reliability.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_reliability.run_id IS 'The leaderboard run.';
COMMENT ON COLUMN leaderboard_reliability.k IS 'Runs drawn, 1 .. the most runs any question of the run has.';
COMMENT ON COLUMN leaderboard_reliability.n_questions IS 'Questions with at least k runs (the mean is over them).';
COMMENT ON COLUMN leaderboard_reliability.pass_hat_k IS 'pass^k: mean over those questions of C(c, k) / C(n, k), the chance that k runs drawn without replacement are all exactly right; k = 1 is the exact-match accuracy.';
COMMENT ON COLUMN leaderboard_reliability.worst_of_k IS 'Mean over those questions of the expected lowest leaderboard score of k runs drawn without replacement: sum over i of C(n - i, k - 1) / C(n, k) times the i-th lowest score; k = 1 is the mean score. For 0/1 scores it equals pass^k.';
COMMENT ON COLUMN leaderboard_reliability.flip_rate IS 'Mean over the run''s questions with 2 or more runs of c (n - c) / C(n, 2): the chance that two of its runs drawn without replacement disagree on exactly right. The same on every k row of a run.';

CREATE OR REPLACE VIEW leaderboard_changes AS
WITH kept AS (
    SELECT ingest_seq, ingest_id,
        row_number() OVER (ORDER BY ingest_seq DESC) AS back
    FROM (SELECT DISTINCT ingest_seq, ingest_id FROM leaderboard_history) AS d
),
last_two AS (
    SELECT
        max(CASE WHEN back = 2 THEN ingest_seq END) AS seq_before,
        max(CASE WHEN back = 2 THEN ingest_id END) AS ingest_before,
        max(CASE WHEN back = 1 THEN ingest_seq END) AS seq_after,
        max(CASE WHEN back = 1 THEN ingest_id END) AS ingest_after
    FROM kept
    WHERE back <= 2
),
before AS (
    SELECT h.* FROM leaderboard_history AS h JOIN last_two AS t ON h.ingest_seq = t.seq_before
),
after AS (
    SELECT h.* FROM leaderboard_history AS h JOIN last_two AS t ON h.ingest_seq = t.seq_after
),
paired AS (
    SELECT
        coalesce(a.benchmark, b.benchmark) AS benchmark,
        coalesce(a.mode, b.mode) AS mode,
        coalesce(a.model, b.model) AS model,
        coalesce(a.run_id, b.run_id) AS run_id,
        b.run_id IS NOT NULL AS was_there,
        a.run_id IS NOT NULL AS is_there,
        b.score AS score_before,
        a.score AS score_after,
        b.rank AS rank_before,
        a.rank AS rank_after,
        b.n_questions AS n_questions_before,
        a.n_questions AS n_questions_after
    FROM before AS b
    FULL OUTER JOIN after AS a
        ON a.benchmark = b.benchmark AND a.mode = b.mode AND a.run_id = b.run_id
)
SELECT
    p.benchmark,
    p.mode,
    p.model,
    t.ingest_before,
    t.ingest_after,
    p.score_before,
    p.score_after,
    p.score_after - p.score_before AS diff,
    p.rank_before,
    p.rank_after,
    p.n_questions_before,
    p.n_questions_after,
    p.run_id
FROM paired AS p
CROSS JOIN last_two AS t
WHERE t.seq_before IS NOT NULL
    AND (NOT p.was_there OR NOT p.is_there
         OR coalesce(abs(p.score_after - p.score_before) > 1e-12,
                     (p.score_after IS NULL) <> (p.score_before IS NULL))
         OR coalesce(p.rank_after <> p.rank_before, false)
         OR coalesce(p.n_questions_after <> p.n_questions_before, false));

COMMENT ON VIEW leaderboard_changes IS 'What moved on the overall leaderboard between the previous ingest and the last one (the last two ingests of leaderboard_history): one row per leaderboard run whose score (by more than 1e-12), rank or question count changed, or that appeared or left; empty after the first ingest. etl ingest prints it as one line per board (benchmark, mode) that changed.';
COMMENT ON COLUMN leaderboard_changes.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN leaderboard_changes.mode IS 'Mode of the board.';
COMMENT ON COLUMN leaderboard_changes.model IS 'Canonical model key of the run.';
COMMENT ON COLUMN leaderboard_changes.ingest_before IS 'The previous ingest (leaderboard_history.ingest_id).';
COMMENT ON COLUMN leaderboard_changes.ingest_after IS 'The last ingest, which built this database.';
COMMENT ON COLUMN leaderboard_changes.score_before IS 'Score at the previous ingest; NULL when the run was not on the board.';
COMMENT ON COLUMN leaderboard_changes.score_after IS 'Score now; NULL when the run left the board.';
COMMENT ON COLUMN leaderboard_changes.diff IS 'score_after - score_before; NULL when the run appeared or left.';
COMMENT ON COLUMN leaderboard_changes.rank_before IS 'Rank within the board at the previous ingest.';
COMMENT ON COLUMN leaderboard_changes.rank_after IS 'Rank within the board now.';
COMMENT ON COLUMN leaderboard_changes.n_questions_before IS 'Questions behind the score at the previous ingest.';
COMMENT ON COLUMN leaderboard_changes.n_questions_after IS 'Questions behind the score now.';
COMMENT ON COLUMN leaderboard_changes.run_id IS 'The leaderboard run (the key the two ingests are matched on).';
