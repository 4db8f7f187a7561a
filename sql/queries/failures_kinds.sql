-- Warehouse.failure_kinds() / etl failures --show kinds: the labelled tool calls of the
-- leaderboard runs by label, kind and tool (failure_kinds), narrowed by $benchmark / $mode /
-- $model / $failure (NULL: any), most calls first.
SELECT k.benchmark, k.mode, k.model, k.failure, k.detail, k.tool, k.n_calls, k.n_results,
       k.share_of_calls, k.run_id
FROM failure_kinds AS k
LEFT JOIN failures AS f ON f.failure = k.failure
WHERE ($benchmark IS NULL OR k.benchmark = $benchmark)
    AND ($mode IS NULL OR k.mode = $mode)
    AND ($model IS NULL OR k.model = $model)
    AND ($failure IS NULL OR k.failure = $failure)
ORDER BY k.benchmark, k.mode, k.model, coalesce(f.position, 1000), k.n_calls DESC, k.detail,
         k.tool
