-- Two departments with one title (as people read it) cannot be told apart in a
-- list. title_key is that reading, folded by the service (SQLite's lower() folds
-- only ASCII); rows from before this migration get it at the service's start.
ALTER TABLE departments ADD COLUMN title_key TEXT;
CREATE UNIQUE INDEX departments_title_key ON departments (title_key);
