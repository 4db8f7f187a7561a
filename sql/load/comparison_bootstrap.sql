-- Poisson bootstrap of the pairs of one benchmark (cmp_wide: one row per question, one
-- column per pair holding the difference d in fixed point (d_fixed = d * 2^40), NULL where
-- the pair does not share the question). Resample b gives question q the weight w = Poisson(1) inverse CDF of
-- u = fmix32((key(q) + b * 2654435769) mod 2^32) / 2^32, key(q) = first 8 hex digits of
-- md5('<seed>:<qid>'); docs/STATISTICS.md. Output: each pair's resampled mean difference per cell
-- (overall, task group, task) and resample, then the percentile interval.
CREATE OR REPLACE TEMP TABLE cmp_boot_task AS
WITH draws AS (
    SELECT wide.*, r.range AS b,
        (wide.qkey + CAST(r.range AS UBIGINT) * CAST(2654435769 AS UBIGINT))
            & CAST(4294967295 AS UBIGINT) AS h0
    FROM cmp_wide AS wide CROSS JOIN range($resamples) AS r
),
m1 AS (SELECT *, xor(h0, h0 >> 16) AS h1 FROM draws),
m2 AS (SELECT *, (h1 * CAST(2246822507 AS UBIGINT)) & CAST(4294967295 AS UBIGINT) AS h2 FROM m1),
m3 AS (SELECT *, xor(h2, h2 >> 13) AS h3 FROM m2),
m4 AS (SELECT *, (h3 * CAST(3266489909 AS UBIGINT)) & CAST(4294967295 AS UBIGINT) AS h4 FROM m3),
m5 AS (SELECT *, xor(h4, h4 >> 16) AS u FROM m4),
weighted AS (
    SELECT *,
        CASE
            WHEN u < 1580030168 THEN 0 WHEN u < 3160060337 THEN 1
            WHEN u < 3950075421 THEN 2 WHEN u < 4213413783 THEN 3
            WHEN u < 4279248373 THEN 4 WHEN u < 4292415291 THEN 5
            WHEN u < 4294609777 THEN 6 WHEN u < 4294923276 THEN 7
            ELSE 8
        END AS w
    FROM m5
)
SELECT
    task_group,
    task,
    b,
    struct_pack(
        num := sum(COLUMNS('^p[0-9]+$') * w),
        den := sum(CASE WHEN COLUMNS('^p[0-9]+$') IS NULL THEN 0 ELSE w END)
    ) AS "\0"
FROM weighted
WHERE w > 0
GROUP BY task_group, task, b;

-- Each pair's resampled mean difference per cell (overall, task group, task) and resample:
-- sum(w * d) / sum(w) over the pair's shared questions of the cell; NULL when the resample
-- drew none of them. Rolled up from the per-task sums.
CREATE OR REPLACE TEMP TABLE cmp_boot_wide AS
SELECT
    cmp_scope(grouping(task_group, task)) AS scope,
    cmp_label(grouping(task_group), task_group) AS task_group,
    cmp_label(grouping(task), task) AS task,
    b,
    CAST(sum(struct_extract(COLUMNS('^p[0-9]+$'), 'num')) AS DOUBLE) / 1099511627776.0
        / nullif(sum(struct_extract(COLUMNS('^p[0-9]+$'), 'den')), 0) AS "\0"
FROM cmp_boot_task
GROUP BY GROUPING SETS ((task_group, task, b), (task_group, b), (b));

-- Percentile interval of every pair and cell (the resamples' 2.5% and 97.5% quantiles,
-- linear interpolation), back to one row per pair and cell.
INSERT INTO cmp_intervals
WITH wide AS (
    SELECT
        scope,
        task_group,
        task,
        struct_pack(
            ci_low := quantile_cont(COLUMNS('^p[0-9]+$'), 0.025),
            ci_high := quantile_cont(COLUMNS('^p[0-9]+$'), 0.975)
        ) AS "\0"
    FROM cmp_boot_wide
    GROUP BY scope, task_group, task
)
SELECT pair, scope, task_group, task, ci.ci_low, ci.ci_high
FROM (UNPIVOT wide ON COLUMNS('^p[0-9]+$') INTO NAME pair VALUE ci)
WHERE ci.ci_low IS NOT NULL;
