-- Observed statistics, bootstrap interval and sign test of every pair and cell (overall,
-- task group, task), into paired_comparisons; beside them the moments of the paired scores
-- (correlation, spread of the differences) and the standard error of diff clustered by
-- patient. Definitions: docs/STATISTICS.md.
INSERT INTO paired_comparisons
WITH observed AS (
    SELECT
        pair,
        cmp_scope(grouping(task_group, task)) AS scope,
        cmp_label(grouping(task_group), task_group) AS task_group,
        cmp_label(grouping(task), task) AS task,
        count(*) AS n_shared,
        -- Means of lists ordered by qid: the same sum order on every rebuild.
        list_avg(list(score_a ORDER BY qid)) AS score_a,
        list_avg(list(score_b ORDER BY qid)) AS score_b,
        list_avg(list(d ORDER BY qid)) AS diff,
        count(*) FILTER (WHERE d > 1e-12) AS wins_a,
        count(*) FILTER (WHERE d < -1e-12) AS wins_b,
        count(*) FILTER (WHERE abs(d) <= 1e-12) AS ties,
        list(score_a ORDER BY qid) AS list_a,
        list(score_b ORDER BY qid) AS list_b,
        list(d ORDER BY qid) AS list_d
    FROM cmp_pair_questions
    GROUP BY GROUPING SETS ((pair, task_group, task), (pair, task_group), (pair))
),
moments AS (
    -- Sums of squared deviations from the cell's means, two-pass over the ordered lists
    -- (exact for constant lists, the same bits on every rebuild).
    SELECT
        pair, scope, task_group, task,
        list_sum(list_transform(list_a, lambda x: (x - score_a) * (x - score_a))) AS ss_a,
        list_sum(list_transform(list_b, lambda x: (x - score_b) * (x - score_b))) AS ss_b,
        list_sum(list_transform(list_a, lambda x, i: (x - score_a) * (list_b[i] - score_b)))
            AS sp_ab,
        list_sum(list_transform(list_d, lambda x: (x - diff) * (x - diff))) AS ss_d,
        list_min(list_a) = list_max(list_a) OR list_min(list_b) = list_max(list_b)
            AS constant_side,
        list_min(list_d) = list_max(list_d) AS constant_d
    FROM observed
),
cluster_cells AS (
    -- The differences of each patient (cluster) within each cell.
    SELECT
        pair,
        cmp_scope(grouping(task_group, task)) AS scope,
        cmp_label(grouping(task_group), task_group) AS task_group,
        cmp_label(grouping(task), task) AS task,
        cluster,
        list(d ORDER BY qid) AS cluster_d
    FROM cmp_pair_questions
    GROUP BY GROUPING SETS ((pair, task_group, task, cluster), (pair, task_group, cluster),
                           (pair, cluster))
),
cluster_deviations AS (
    -- sum over the cluster's questions of (d_i - diff), diff the cell's mean
    SELECT
        c.pair, c.scope, c.task_group, c.task, c.cluster,
        list_sum(list_transform(c.cluster_d, lambda x: x - o.diff)) AS deviation
    FROM cluster_cells AS c
    JOIN observed AS o
        ON o.pair = c.pair AND o.scope = c.scope AND o.task_group = c.task_group
        AND o.task = c.task
),
clustered AS (
    SELECT
        pair, scope, task_group, task,
        count(*) AS n_clusters,
        list_sum(list(deviation * deviation ORDER BY cluster)) AS ss_clusters
    FROM cluster_deviations
    GROUP BY pair, scope, task_group, task
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
    $seed AS seed,
    -- Pearson r; undefined when a side is constant (its sum of squares is 0).
    CASE WHEN NOT m.constant_side
        THEN greatest(-1.0, least(1.0, m.sp_ab / sqrt(m.ss_a * m.ss_b))) END AS correlation,
    CASE WHEN o.n_shared > 1
        THEN CASE WHEN m.constant_d THEN 0.0 ELSE sqrt(m.ss_d / (o.n_shared - 1)) END
    END AS sd_diff,
    -- One cluster, or every difference equal: the sum is 0 by algebra; rounding would
    -- leave 1e-17 instead.
    CASE WHEN k.n_clusters = 1 OR m.constant_d THEN 0.0
        ELSE sqrt(k.ss_clusters) / o.n_shared END AS se_diff_clustered,
    k.n_clusters
FROM observed AS o
JOIN cmp_pairs AS p ON p.pair = o.pair
JOIN moments AS m
    ON m.pair = o.pair AND m.scope = o.scope AND m.task_group = o.task_group AND m.task = o.task
JOIN clustered AS k
    ON k.pair = o.pair AND k.scope = o.scope AND k.task_group = o.task_group AND k.task = o.task
LEFT JOIN cmp_intervals AS i
    ON i.pair = o.pair AND i.scope = o.scope AND i.task_group = o.task_group AND i.task = o.task;
