-- Revisions of articles and tests (issue 25): every save writes the version
-- it saved, with who saved it and when, in the save's transaction; an item
-- saved before this migration gets its version of then (no author, author_id
-- NULL) on its first save after. Restoring a revision is a new save. Authors
-- are auth's user ids, so no foreign key; their name is as the token gave it.
-- Attempts keep their own questions, answers and scores (0002), so no
-- revision ever rewrites them.

CREATE TABLE article_revisions (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    article_id BIGINT NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    content TEXT NOT NULL,
    date_deadline TEXT,
    test_id BIGINT,
    author_id BIGINT,
    author_name TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX article_revisions_by_article ON article_revisions (article_id, id);

-- questions: the test's questions as saved, JSON
-- [{"id", "title", "answers": [{"id", "title", "isCorrect"}]}].
CREATE TABLE test_revisions (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    test_id BIGINT NOT NULL REFERENCES tests (id) ON DELETE CASCADE,
    title TEXT NOT NULL,
    description TEXT NOT NULL,
    total_points_required BIGINT NOT NULL,
    number_of_questions BIGINT NOT NULL,
    number_of_tries BIGINT NOT NULL,
    article_id BIGINT,
    questions TEXT NOT NULL,
    question_count BIGINT NOT NULL,
    author_id BIGINT,
    author_name TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX test_revisions_by_test ON test_revisions (test_id, id);
