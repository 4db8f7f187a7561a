-- The leaderboard with what a reader needs to trust an order: rank groups from the paired
-- comparisons, coverage and a flag for a run that covers less than the others, the scorer;
-- and a board restricted to the questions every run of it answered.

CREATE OR REPLACE VIEW board_rows AS
-- One row per run of every board and question set (board_cells, level overall) with what a
-- reader needs beside the number to trust an order: the rank group (default board, all
-- questions: the boards the paired comparisons are made for), the questions the run has
-- against the split's and the board's most, the scorer that made the number against the
-- board's usual one, and for a scored-only run the file its scores were read from.
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
present AS (
    -- questions the run has: its results, or a scored-only run's score rows (board_results)
    SELECT run_id, count(DISTINCT qid) AS present
    FROM board_results
    GROUP BY run_id
),
score_files AS (
    -- where a scored-only run's numbers were read from: the file of its default scorer's rows
    SELECT q.run_id, min(f.path) AS score_file
    FROM question_scores AS q
    JOIN leaderboard_runs AS lr ON lr.run_id = q.run_id AND lr.scorer = q.scorer
    JOIN files AS f ON f.file_id = q.file_id
    WHERE lr.scored_elsewhere
    GROUP BY q.run_id
),
rows AS (
    SELECT
        c.*,
        coalesce(p.present, 0) AS present,
        coalesce(r.expected_questions,
                 max(coalesce(p.present, 0)) OVER board) AS expected,
        max(coalesce(p.present, 0)) OVER board AS most_present,
        count(*) OVER (PARTITION BY c.benchmark, c.mode, c.board_scorer, c.question_set,
                                    c.scorer) AS scorer_runs
    FROM board_cells AS c
    LEFT JOIN present AS p ON p.run_id = c.run_id
    LEFT JOIN runs AS r ON r.run_id = c.run_id
    WHERE c.level = 'overall'
    WINDOW board AS (PARTITION BY c.benchmark, c.mode, c.board_scorer, c.question_set)
),
usual AS (
    -- the scorer most runs of a board were scored by (ties: the first by name)
    SELECT benchmark, mode, board_scorer, question_set, scorer AS usual_scorer
    FROM (
        SELECT benchmark, mode, board_scorer, question_set, scorer,
            row_number() OVER (PARTITION BY benchmark, mode, board_scorer, question_set
                               ORDER BY scorer_runs DESC, scorer) AS pick
        FROM rows
    ) AS ranked_scorers
    WHERE pick = 1
)
SELECT
    w.benchmark,
    w.mode,
    w.board_scorer,
    w.question_set,
    w.rank,
    CASE WHEN w.board_scorer = 'default' AND w.question_set = 'all' THEN g.rank_group END
        AS rank_group,
    w.model,
    w.n_questions,
    w.score,
    w.ci_low,
    w.ci_high,
    w.ci_naive_low,
    w.ci_naive_high,
    w.n_clusters,
    w.design_effect,
    w.single_cluster,
    w.present,
    w.expected,
    CAST(w.present AS DOUBLE) / nullif(w.expected, 0) AS coverage,
    w.most_present,
    w.present < w.most_present AS low_coverage,
    w.scorer,
    u.usual_scorer,
    w.scorer <> u.usual_scorer AS other_scorer,
    w.is_default,
    lr.scored_elsewhere,
    sf.score_file,
    w.display_name,
    w.split,
    w.run_id
FROM rows AS w
JOIN usual AS u
    ON u.benchmark = w.benchmark AND u.mode = w.mode AND u.board_scorer = w.board_scorer
    AND u.question_set = w.question_set
JOIN leaderboard_runs AS lr ON lr.run_id = w.run_id
LEFT JOIN grouped AS g ON g.run_id = w.run_id
LEFT JOIN score_files AS sf ON sf.run_id = w.run_id;

COMMENT ON VIEW board_rows IS 'One row per run of every board and question set (board_cells at level overall: n, score, rank and both intervals) with the marks a reader needs to trust an order, as columns: rank_group (default board, all questions: walk down the board in score order, ties by run_id; group 1 starts at the best run; a run joins the current group unless the comparison between it and the group''s leader is significant, model_comparison p_adjusted < 0.05, Holm-adjusted exact sign test across the pairs of the board, in which case it starts the next group and becomes its leader), the questions present against the split''s and the board''s most (low_coverage), the scorer against the board''s usual one (other_scorer), and for a scored-only run the file its scores were read from. The explorer''s boards, etl leaderboard and the report read it.';
COMMENT ON COLUMN board_rows.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN board_rows.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN board_rows.board_scorer IS 'How the board is scored: default (each run by its own default scorer) or a scorer name (board_cells.board_scorer).';
COMMENT ON COLUMN board_rows.question_set IS 'all or shared (board_cells.question_set).';
COMMENT ON COLUMN board_rows.rank IS 'Competition rank by score within the board and question set.';
COMMENT ON COLUMN board_rows.rank_group IS '1 = the top group: runs not significantly worse than the best (see the view comment); 2 = the next group, and so on. Only on the default board over all questions (the paired comparisons are made for it); NULL elsewhere.';
COMMENT ON COLUMN board_rows.model IS 'Canonical model key.';
COMMENT ON COLUMN board_rows.n_questions IS 'Questions behind the score (n).';
COMMENT ON COLUMN board_rows.score IS 'Micro mean of the per-question scores, a fraction in [0, 1].';
COMMENT ON COLUMN board_rows.ci_low IS 'Lower end of the default interval, 95% clustered by patient (board_cells.ci_low).';
COMMENT ON COLUMN board_rows.ci_high IS 'Upper end of the default interval, 95% clustered by patient (board_cells.ci_high).';
COMMENT ON COLUMN board_rows.ci_naive_low IS 'Lower end of the naive 95% normal interval, clipped to 0.';
COMMENT ON COLUMN board_rows.ci_naive_high IS 'Upper end of the naive 95% normal interval, clipped to 1.';
COMMENT ON COLUMN board_rows.n_clusters IS 'Distinct patients among the questions.';
COMMENT ON COLUMN board_rows.design_effect IS '(se_clustered / se_naive)^2: above 1 the clustered interval is the wider (board_cells.design_effect).';
COMMENT ON COLUMN board_rows.single_cluster IS 'True when every question is of one patient (no default interval).';
COMMENT ON COLUMN board_rows.present IS 'Distinct questions the run has (its results; for a scored-only run its score rows: board_results).';
COMMENT ON COLUMN board_rows.expected IS 'Questions expected: the split''s expected_questions, else the most present of the board.';
COMMENT ON COLUMN board_rows.coverage IS 'present / expected, a fraction.';
COMMENT ON COLUMN board_rows.most_present IS 'The most questions a run of the board has.';
COMMENT ON COLUMN board_rows.low_coverage IS 'True when another run of the board has more questions (present < most_present): its score is over another question set.';
COMMENT ON COLUMN board_rows.scorer IS 'Scorer that made the number.';
COMMENT ON COLUMN board_rows.usual_scorer IS 'The scorer most runs of the board were scored by (ties: the first by name).';
COMMENT ON COLUMN board_rows.other_scorer IS 'True when the run was scored by another scorer than the board''s usual one: the numbers are not computed the same way.';
COMMENT ON COLUMN board_rows.is_default IS 'True when scorer is the run''s default scorer.';
COMMENT ON COLUMN board_rows.scored_elsewhere IS 'True for a scored-only run (runs.scored_elsewhere): its results were made and scored outside this tree.';
COMMENT ON COLUMN board_rows.score_file IS 'For a scored-only run: the file (logical path) its default scorer''s rows were read from; NULL otherwise.';
COMMENT ON COLUMN board_rows.display_name IS 'Human model name.';
COMMENT ON COLUMN board_rows.split IS 'Full split of the run.';
COMMENT ON COLUMN board_rows.run_id IS 'The run.';

CREATE OR REPLACE VIEW leaderboard_ranked AS
SELECT
    benchmark, mode, rank, rank_group, model, n_questions, score, ci_low, ci_high, present,
    expected, coverage, low_coverage, scorer AS score_source, display_name, split, run_id,
    ci_naive_low, ci_naive_high, n_clusters, design_effect, single_cluster, most_present,
    scorer, usual_scorer, other_scorer, scored_elsewhere, score_file
FROM board_rows
WHERE board_scorer = 'default' AND question_set = 'all';

COMMENT ON VIEW leaderboard_ranked IS 'leaderboard with rank groups, coverage and the scorer (board_rows of the default board over all questions). rank_group: walk down the board in score order (ties by run_id); group 1 starts at the best run; a run joins the current group unless the comparison between it and the group''s leader (the group''s first run) is significant (model_comparison p_adjusted < 0.05: Holm-adjusted exact sign test across the pairs of the board), in which case it starts the next group and becomes its leader. Runs of one group are not shown to differ from their leader; their order within it is not established. coverage = present / expected (expected_questions of the split, else the largest present of the board); low_coverage flags a run with fewer questions than another run of its board.';
COMMENT ON COLUMN leaderboard_ranked.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN leaderboard_ranked.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_ranked.rank IS 'Competition rank by score (as leaderboard).';
COMMENT ON COLUMN leaderboard_ranked.rank_group IS '1 = the top group: runs not significantly worse than the best (see the view comment); 2 = the next group, and so on.';
COMMENT ON COLUMN leaderboard_ranked.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_ranked.n_questions IS 'Distinct questions behind the score.';
COMMENT ON COLUMN leaderboard_ranked.score IS 'Leaderboard score, a fraction in [0, 1].';
COMMENT ON COLUMN leaderboard_ranked.ci_low IS 'Lower end of the leaderboard''s default interval, 95% clustered by patient.';
COMMENT ON COLUMN leaderboard_ranked.ci_high IS 'Upper end of the leaderboard''s default interval, 95% clustered by patient.';
COMMENT ON COLUMN leaderboard_ranked.present IS 'Distinct questions the run has (its results; for a scored-only run its score rows).';
COMMENT ON COLUMN leaderboard_ranked.expected IS 'Questions expected: the split''s expected_questions, else the largest present of the board.';
COMMENT ON COLUMN leaderboard_ranked.coverage IS 'present / expected, a fraction.';
COMMENT ON COLUMN leaderboard_ranked.low_coverage IS 'True when another run of the board has more questions: its score is over a different question set.';
COMMENT ON COLUMN leaderboard_ranked.score_source IS 'Scorer of the per-question rows (authors_text, set_f1, scored, rescored).';
COMMENT ON COLUMN leaderboard_ranked.display_name IS 'Human model name.';
COMMENT ON COLUMN leaderboard_ranked.split IS 'Full split of the run.';
COMMENT ON COLUMN leaderboard_ranked.run_id IS 'The run.';
COMMENT ON COLUMN leaderboard_ranked.ci_naive_low IS 'Lower end of the naive 95% normal interval, clipped to 0.';
COMMENT ON COLUMN leaderboard_ranked.ci_naive_high IS 'Upper end of the naive 95% normal interval, clipped to 1.';
COMMENT ON COLUMN leaderboard_ranked.n_clusters IS 'Distinct patients among the questions.';
COMMENT ON COLUMN leaderboard_ranked.design_effect IS '(se_clustered / se_naive)^2 (board_cells.design_effect).';
COMMENT ON COLUMN leaderboard_ranked.single_cluster IS 'True when every question is of one patient (no default interval).';
COMMENT ON COLUMN leaderboard_ranked.most_present IS 'The most questions a run of the board has.';
COMMENT ON COLUMN leaderboard_ranked.scorer IS 'Same as score_source: the scorer that made the number.';
COMMENT ON COLUMN leaderboard_ranked.usual_scorer IS 'The scorer most runs of the board were scored by (ties: the first by name).';
COMMENT ON COLUMN leaderboard_ranked.other_scorer IS 'True when the run was scored by another scorer than the board''s usual one.';
COMMENT ON COLUMN leaderboard_ranked.scored_elsewhere IS 'True for a scored-only run (runs.scored_elsewhere).';
COMMENT ON COLUMN leaderboard_ranked.score_file IS 'For a scored-only run: the file its scores were read from.';

CREATE OR REPLACE VIEW leaderboard_common AS
SELECT
    l.benchmark,
    l.mode,
    l.model,
    coalesce(c.n_questions, 0) AS n_questions,
    c.score,
    c.rank,
    l.score AS default_score,
    l.rank AS default_rank,
    l.score_source,
    l.run_id,
    c.ci_low,
    c.ci_high,
    c.ci_naive_low,
    c.ci_naive_high
FROM leaderboard AS l
LEFT JOIN board_cells AS c
    ON c.run_id = l.run_id AND c.board_scorer = 'default' AND c.question_set = 'shared'
    AND c.level = 'overall';

COMMENT ON VIEW leaderboard_common IS 'The leaderboard restricted to the questions every run of the board (benchmark, mode) answered, so every score is over the same questions (board_cells of the default board, question set shared); beside it the default score and rank. A run of a board whose runs share no question has n_questions 0 and no score.';
COMMENT ON COLUMN leaderboard_common.benchmark IS 'Benchmark of the board.';
COMMENT ON COLUMN leaderboard_common.mode IS 'agentic or oneshot.';
COMMENT ON COLUMN leaderboard_common.model IS 'Canonical model key.';
COMMENT ON COLUMN leaderboard_common.n_questions IS 'Questions every run of the board answered (the same for every row of a board).';
COMMENT ON COLUMN leaderboard_common.score IS 'Micro mean of per-question scores over those questions.';
COMMENT ON COLUMN leaderboard_common.rank IS 'Rank by this score within the board; NULL without a shared question.';
COMMENT ON COLUMN leaderboard_common.ci_low IS 'Lower end of the default interval of this score, 95% clustered by patient.';
COMMENT ON COLUMN leaderboard_common.ci_high IS 'Upper end of the default interval of this score, 95% clustered by patient.';
COMMENT ON COLUMN leaderboard_common.ci_naive_low IS 'Lower end of the naive 95% normal interval of this score, clipped to 0.';
COMMENT ON COLUMN leaderboard_common.ci_naive_high IS 'Upper end of the naive 95% normal interval of this score, clipped to 1.';
COMMENT ON COLUMN leaderboard_common.default_score IS 'Score on the default leaderboard (all questions of the run).';
COMMENT ON COLUMN leaderboard_common.default_rank IS 'Rank on the default leaderboard.';
COMMENT ON COLUMN leaderboard_common.score_source IS 'Scorer of the per-question rows.';
COMMENT ON COLUMN leaderboard_common.run_id IS 'The run.';
