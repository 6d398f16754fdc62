-- Attempts as the service takes and scores them. The service answered
-- UNIMPLEMENTED until now, so the old attempts table never held a row and is
-- replaced rather than altered.
--
-- A try is taken by inserting an attempt whose try_number is the next free one
-- and at most the test's number_of_tries, in one conditional statement; the
-- unique (test_id, user_id, try_number) makes two concurrent writers collide
-- instead of both taking the same try.

DROP TABLE attempts;

ALTER TABLE tests ADD COLUMN article_id BIGINT REFERENCES articles (id) ON DELETE SET NULL;

CREATE TABLE attempts (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    test_id BIGINT NOT NULL REFERENCES tests (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL,
    try_number BIGINT NOT NULL CHECK (try_number > 0),
    started_at BIGINT NOT NULL,
    points_possible BIGINT NOT NULL,
    completed_at BIGINT,
    total_point BIGINT,
    is_passed BIGINT CHECK (is_passed IN (0, 1)),
    UNIQUE (test_id, user_id, try_number)
);
CREATE INDEX attempts_by_user ON attempts (user_id, test_id);
-- The statistics page: newest completed first, paged by (completed_at, id).
CREATE INDEX attempts_by_completion ON attempts (completed_at, id);
CREATE INDEX attempts_by_test_completion ON attempts (test_id, completed_at, id);

-- The questions of an attempt in the order shown, and the answer chosen.
-- question_id has no foreign key: editing a test later must not rewrite history.
CREATE TABLE attempt_questions (
    attempt_id BIGINT NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
    question_id BIGINT NOT NULL,
    position BIGINT NOT NULL,
    answer_id BIGINT,
    is_correct BIGINT CHECK (is_correct IN (0, 1)),
    PRIMARY KEY (attempt_id, question_id)
);
CREATE INDEX attempt_questions_by_question ON attempt_questions (question_id);

-- The learner's departments (access-token claim) when the attempt completed,
-- for the statistics filter: education does not own department membership.
CREATE TABLE attempt_departments (
    attempt_id BIGINT NOT NULL REFERENCES attempts (id) ON DELETE CASCADE,
    department_id BIGINT NOT NULL,
    PRIMARY KEY (attempt_id, department_id)
);
CREATE INDEX attempt_departments_by_department ON attempt_departments (department_id, attempt_id);
