-- The leaderboard with what a reader needs to trust an order: rank groups from the paired
-- comparisons, coverage and a flag for a run that covers less than the others, the scorer;
-- and a board restricted to the questions every run of it answered.

CREATE OR REPLACE VIEW leaderboard_ranked AS
WITH RECURSIVE ordered AS (
    SELECT
        benchmark, mode, run_id,
        row_number() OVER (PARTITION BY benchmark, mode ORDER BY score DESC, run_id) AS position
    FROM leaderboard
),
separated AS (
    -- A pair is separated when its Holm-adjusted sign-test p is below 0.05.
    SELECT run_a, run_b
    FROM model_comparison_cells
    WHERE scope = 'overall' AND p_adjusted < 0.05
),
next_leader AS (
    -- For each run taken as a group's leader: the first run below it that is separated
    -- from it, which leads the next group. Computed outside the recursion, because Spark
    -- allows no aggregate on a recursive reference.
    SELECT leader.benchmark, leader.mode, leader.position, min(o.position) AS next_position
    FROM ordered AS leader
    JOIN ordered AS o
        ON o.benchmark = leader.benchmark AND o.mode = leader.mode
        AND o.position > leader.position
    JOIN separated AS s ON s.run_a = leader.run_id AND s.run_b = o.run_id
    GROUP BY leader.benchmark, leader.mode, leader.position
),
leaders (benchmark, mode, position, rank_group) AS (
    SELECT benchmark, mode, position, 1 FROM ordered WHERE position = 1
    UNION ALL
    SELECT l.benchmark, l.mode, n.next_position, l.rank_group + 1
    FROM leaders AS l
    JOIN next_leader AS n
        ON n.benchmark = l.benchmark AND n.mode = l.mode AND n.position = l.position
),
grouped AS (
    SELECT o.run_id, max(l.rank_group) AS rank_group
    FROM ordered AS o
    JOIN leaders AS l
        ON l.benchmark = o.benchmark AND l.mode = o.mode AND l.position <= o.position
    GROUP BY o.run_id
),
covered AS (
    SELECT
        l.run_id,
        c.present,
        coalesce(c.expected_questions, max(c.present) OVER board) AS expected,
        max(c.present) OVER board AS board_max_present
    FROM leaderboard AS l
    JOIN coverage AS c ON c.run_id = l.run_id
    WINDOW board AS (PARTITION BY l.benchmark, l.mode)
)
SELECT
    l.benchmark,
    l.mode,
    l.rank,
    g.rank_group,
    l.model,
    l.n_questions,
    l.score,
    l.ci_low,
    l.ci_high,
    c.present,
    c.expected,
    CAST(c.present AS DOUBLE) / nullif(c.expected, 0) AS coverage,
    c.present < c.board_max_present AS low_coverage,
    l.score_source,
    l.display_name,
    l.split,
    l.run_id
FROM leaderboard AS l
JOIN grouped AS g ON g.run_id = l.run_id
LEFT JOIN covered AS c ON c.run_id = l.run_id;

COMMENT ON VIEW leaderboard_ranked IS 'leaderboard with rank groups, coverage and the scorer. rank_group: walk down the board in score order (ties by run_id); group 1 starts at the best run; a run joins the current group unless the comparison between it and the group''s leader (the group''s first run) is significant (model_comparison p_adjusted < 0.05: Holm-adjusted exact sign test across the pairs of the board), in which case it starts the next group and becomes its leader. Runs of one group are not shown to differ from their leader; their order within it is not established. coverage = present / expected (expected_questions of the split, else the largest present of the board); low_coverage flags a run with fewer questions than another run of its board.';
COMMENT ON COLUMN leaderboard_ranked.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN leaderboard_ranked.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_ranked.rank IS 'Competition rank by score (as leaderboard).';
COMMENT ON COLUMN leaderboard_ranked.rank_group IS '1 = the top group: runs not significantly worse than the best (see the view comment); 2 = the next group, and so on.';
COMMENT ON COLUMN leaderboard_ranked.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_ranked.n_questions IS 'Distinct questions behind the score.';
COMMENT ON COLUMN leaderboard_ranked.score IS 'Leaderboard score, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_ranked.ci_low IS 'Lower end of the leaderboard''s 95% normal interval.';
COMMENT ON COLUMN leaderboard_ranked.ci_high IS 'Upper end of the leaderboard''s 95% normal interval.';
COMMENT ON COLUMN leaderboard_ranked.present IS 'Distinct questions with a result in the run (coverage.present).';
COMMENT ON COLUMN leaderboard_ranked.expected IS 'Questions expected: the split''s expected_questions, else the largest present of the board.';
COMMENT ON COLUMN leaderboard_ranked.coverage IS 'present / expected, a fraction.';
COMMENT ON COLUMN leaderboard_ranked.low_coverage IS 'True when another run of the board has more questions: its score is over a different question set.';
COMMENT ON COLUMN leaderboard_ranked.score_source IS 'Scorer of the per-question rows (set_f1, scored, rescored).';
COMMENT ON COLUMN leaderboard_ranked.display_name IS 'Human model name.';
COMMENT ON COLUMN leaderboard_ranked.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_ranked.run_id IS 'The run.';

CREATE OR REPLACE VIEW leaderboard_common AS
WITH board_runs AS (
    SELECT benchmark, mode, count(*) AS n_runs FROM leaderboard GROUP BY benchmark, mode
),
common AS (
    SELECT q.benchmark, q.mode, q.qid
    FROM leaderboard_question_scores AS q
    JOIN leaderboard AS l ON l.run_id = q.run_id
    GROUP BY q.benchmark, q.mode, q.qid
    HAVING count(DISTINCT q.run_id) = (
        SELECT b.n_runs FROM board_runs AS b WHERE b.benchmark = q.benchmark AND b.mode = q.mode
    )
),
per_run AS (
    SELECT q.run_id, count(*) AS n_questions, avg(q.score) AS score
    FROM leaderboard_question_scores AS q
    JOIN common AS c ON c.benchmark = q.benchmark AND c.mode = q.mode AND c.qid = q.qid
    GROUP BY q.run_id
)
SELECT
    l.benchmark,
    l.mode,
    l.model,
    coalesce(p.n_questions, 0) AS n_questions,
    p.score,
    rank() OVER (PARTITION BY l.benchmark, l.mode ORDER BY p.score DESC NULLS LAST) AS rank,
    l.score AS default_score,
    l.rank AS default_rank,
    l.score_source,
    l.run_id
FROM leaderboard AS l
LEFT JOIN per_run AS p ON p.run_id = l.run_id;

COMMENT ON VIEW leaderboard_common IS 'The leaderboard restricted to the questions every run of the board (benchmark, mode) answered, so every score is over the same questions; beside it the default score and rank.';
COMMENT ON COLUMN leaderboard_common.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN leaderboard_common.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_common.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_common.n_questions IS 'Questions every run of the board answered (the same for every row of a board).';
COMMENT ON COLUMN leaderboard_common.score IS 'Micro mean of per-question scores over those questions.';
COMMENT ON COLUMN leaderboard_common.rank IS 'Rank by this score within the board.';
COMMENT ON COLUMN leaderboard_common.default_score IS 'Score on the default leaderboard (all questions of the run).';
COMMENT ON COLUMN leaderboard_common.default_rank IS 'Rank on the default leaderboard.';
COMMENT ON COLUMN leaderboard_common.score_source IS 'Scorer of the per-question rows.';
COMMENT ON COLUMN leaderboard_common.run_id IS 'The run.';
