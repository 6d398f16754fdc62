-- A learner's reads of tests follow the links between articles and tests both
-- ways (an article's test_id, a test's article_id); each way has its index.
CREATE INDEX articles_by_test ON articles (test_id);
CREATE INDEX tests_by_article ON tests (article_id);
