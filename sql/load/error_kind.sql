-- The error_kind of a staged result row s (an expression, spliced into sql/load/results.sql):
-- the first pattern matching the lower-cased error text, then the status. The texts are
-- those the ClinSeekAgent writers store (deploy_agent*.py: status error with
-- error = str(exception), stop_reason exception / exception_before_completion; status
-- incomplete with stop_reason no_final_answer; one-shot "[ERROR] <exception>").
CASE
    WHEN s.status = 'success' AND s.error IS NULL THEN 'none'
    WHEN regexp_matches(lower(coalesce(s.error, '')), 'throttl|too many requests|rate.?limit|quota|\b429\b')
        THEN 'throttling'
    WHEN regexp_matches(lower(coalesce(s.error, '')), 'context length|context window|too long|maximum context|too many tokens')
        THEN 'context_length'
    WHEN regexp_matches(lower(coalesce(s.error, '')), 'ssl|certificate|eof occurred in violation') THEN 'ssl'
    WHEN regexp_matches(lower(coalesce(s.error, '')), 'timed out|timeout|deadline exceeded') THEN 'timeout'
    WHEN regexp_matches(lower(coalesce(s.error, '')), 'connection|reset by peer|broken pipe|remote end closed|name resolution|network is unreachable|max retries exceeded|no data in sse response')
        THEN 'connection'
    WHEN regexp_matches(lower(coalesce(s.error, '')), 'internal server error|service unavailable|serviceunavailable|bad gateway|overloaded|modelnotready|\b50[0234]\b')
        THEN 'server'
    WHEN regexp_matches(lower(coalesce(s.error, '')), 'json|parse|decode|invalid format') THEN 'parse_error'
    WHEN s.status = 'incomplete' OR s.stop_reason = 'no_final_answer' THEN 'no_final_answer'
    WHEN s.status = 'success' THEN 'none'
    ELSE 'other'
END
