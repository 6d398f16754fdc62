-- The statistics page filtered by one learner, newest first: with only
-- (user_id, test_id) the planner walked the completion index and skipped every
-- other learner's rows, which grew with the table (the education bench: 12×
-- slower at 1M results than at 10k). This index serves the filter and the order.
CREATE INDEX attempts_by_user_completion ON attempts (user_id, completed_at, id);
