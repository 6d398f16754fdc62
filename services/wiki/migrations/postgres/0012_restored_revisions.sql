-- A revision written by a restore names the revision it restored (issue 37),
-- so the history says «восстановлено из версии от …»; NULL for any other save
-- and for every revision written before. Expand only: a release that does not
-- know the column writes NULL.
ALTER TABLE instruction_revisions ADD COLUMN restored_from_id BIGINT;
