-- Courses of articles, tests with questions drawn per attempt, and attempts.
-- Instants are Unix milliseconds; deadlines are calendar dates 'YYYY-MM-DD';
-- flags are 0/1 (sqlx's Any driver decodes neither BOOLEAN nor TIMESTAMP).

CREATE TABLE tests (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    total_points_required BIGINT NOT NULL CHECK (total_points_required > 0),
    number_of_questions BIGINT NOT NULL CHECK (number_of_questions > 0),
    number_of_tries BIGINT NOT NULL CHECK (number_of_tries > 0),
    created_at BIGINT NOT NULL
);

CREATE TABLE questions (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    test_id BIGINT NOT NULL REFERENCES tests (id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    title TEXT NOT NULL
);
CREATE INDEX questions_by_test ON questions (test_id);

CREATE TABLE answers (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    question_id BIGINT NOT NULL REFERENCES questions (id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    title TEXT NOT NULL,
    is_correct BIGINT NOT NULL CHECK (is_correct IN (0, 1))
);
CREATE INDEX answers_by_question ON answers (question_id);

CREATE TABLE articles (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    content TEXT NOT NULL,
    date_deadline TEXT,
    test_id BIGINT REFERENCES tests (id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE courses (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    date_creation BIGINT NOT NULL,
    date_deadline TEXT NOT NULL
);

CREATE TABLE course_articles (
    course_id BIGINT NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
    article_id BIGINT NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    position BIGINT NOT NULL,
    PRIMARY KEY (course_id, article_id)
);

-- Assignees are auth's user ids: another service's data, so no foreign key.
CREATE TABLE course_users (
    course_id BIGINT NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL,
    PRIMARY KEY (course_id, user_id)
);
CREATE INDEX course_users_by_user ON course_users (user_id);

-- One row per try. A try is taken by inserting its row; completion fills the
-- result columns once.
CREATE TABLE attempts (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    test_id BIGINT NOT NULL REFERENCES tests (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL,
    started_at BIGINT NOT NULL,
    drawn_question_ids TEXT NOT NULL,
    completed_at BIGINT,
    total_point BIGINT,
    is_passed BIGINT CHECK (is_passed IN (0, 1))
);
CREATE INDEX attempts_by_test_and_user ON attempts (test_id, user_id);
