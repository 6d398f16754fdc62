-- Who wrote each unit (issue 21): a person (auth's user id) or another
-- hospital system (auth's service account id), never both. `created_by_*`
-- is who added the unit; `changed_*` the last change after that (an edit, a
-- retirement, a register's upsert). Units written before this migration keep
-- NULL: their authors were never recorded. The inventory number needs no
-- change here: it has been unique (exact text, trimmed) since 0001, retired
-- units included, so the register's key is sound as it is.

ALTER TABLE environments ADD COLUMN created_by_user_id BIGINT;
ALTER TABLE environments ADD COLUMN created_by_service_account_id BIGINT;
ALTER TABLE environments ADD COLUMN changed_at BIGINT;
ALTER TABLE environments ADD COLUMN changed_by_user_id BIGINT;
ALTER TABLE environments ADD COLUMN changed_by_service_account_id BIGINT;
