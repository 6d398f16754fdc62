-- Training records for other systems (issue 21).
--
-- Every completed attempt is a record with a sequence number, given in the
-- transaction that completes it by raising the one row of
-- training_record_sequence: a writer holds that row until it commits, so
-- numbers are handed out in commit order, and a reader that has seen record n
-- never later finds one below n. Attempts completed before are numbered here
-- in the order of their completion.
ALTER TABLE attempts ADD COLUMN record_seq BIGINT;
UPDATE attempts SET record_seq = numbered.n
FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY completed_at, id) AS n FROM attempts WHERE completed_at IS NOT NULL) AS numbered
WHERE numbered.id = attempts.id;
CREATE UNIQUE INDEX attempts_by_record_seq ON attempts (record_seq);

CREATE TABLE training_record_sequence (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    last_seq BIGINT NOT NULL
);
INSERT INTO training_record_sequence (id, last_seq)
SELECT 1, COALESCE(MAX(record_seq), 0) FROM attempts;

-- An assignee's own deadline (NULL: the course's applies), and who assigned
-- them: a person (user id) or another system (service account id); both NULL
-- for assignments made before this was recorded.
ALTER TABLE course_users ADD COLUMN date_deadline TEXT;
ALTER TABLE course_users ADD COLUMN assigned_by_user_id BIGINT;
ALTER TABLE course_users ADD COLUMN assigned_by_service_account_id BIGINT;
ALTER TABLE course_users ADD COLUMN assigned_at BIGINT;

-- A record names the course of its test: from an article to its courses.
CREATE INDEX course_articles_by_article ON course_articles (article_id);
