-- Observed statistics, bootstrap interval and sign test of every pair and cell (overall,
-- task group, task), into paired_comparisons. Definitions: docs/STATISTICS.md.
INSERT INTO paired_comparisons
WITH observed AS (
    SELECT
        pair,
        CASE grouping(task_group, task) WHEN 0 THEN 'task' WHEN 1 THEN 'group' ELSE 'overall' END
            AS scope,
        CASE WHEN grouping(task_group) = 1 THEN '' ELSE task_group END AS task_group,
        CASE WHEN grouping(task) = 1 THEN '' ELSE task END AS task,
        count(*) AS n_shared,
        -- Means of lists ordered by qid: the same sum order on every rebuild.
        list_avg(list(score_a ORDER BY qid)) AS score_a,
        list_avg(list(score_b ORDER BY qid)) AS score_b,
        list_avg(list(d ORDER BY qid)) AS diff,
        count(*) FILTER (WHERE d > 1e-12) AS wins_a,
        count(*) FILTER (WHERE d < -1e-12) AS wins_b,
        count(*) FILTER (WHERE abs(d) <= 1e-12) AS ties
    FROM cmp_pair_questions
    GROUP BY GROUPING SETS ((pair, task_group, task), (pair, task_group), (pair))
)
SELECT
    p.kind, p.benchmark, p.mode_a, p.mode_b, p.model_a, p.model_b, p.run_a, p.run_b,
    o.scope, nullif(o.task_group, ''), nullif(o.task, ''), o.n_shared, o.score_a, o.score_b, o.diff,
    i.ci_low, i.ci_high,
    CASE WHEN o.wins_a + o.wins_b = 0 THEN 1.0 ELSE least(1.0, 2 * list_sum(list_transform(
        -- P(X <= min(wins)) for X ~ Binomial(wins_a + wins_b, 1/2), term by term in log space
        range(least(o.wins_a, o.wins_b) + 1),
        lambda i: exp(lgamma(o.wins_a + o.wins_b + 1) - lgamma(i + 1)
                 - lgamma(o.wins_a + o.wins_b - i + 1) - (o.wins_a + o.wins_b) * ln(2))
    ))) END AS p_value,
    o.wins_a, o.wins_b, o.ties,
    $resamples AS n_resamples,
    $seed AS seed
FROM observed AS o
JOIN cmp_pairs AS p ON p.pair = o.pair
LEFT JOIN cmp_intervals AS i
    ON i.pair = o.pair AND i.scope = o.scope AND i.task_group = o.task_group AND i.task = o.task;
