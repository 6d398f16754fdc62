-- Common document titles are unique as people read them, as the other
-- reference names are (case, runs of spaces and ё/е ignored; the key is
-- computed in Rust). Rows from before this migration get their keys at start
-- (portal_kit::db::rekey); until then NULL keys collide with nothing.

ALTER TABLE common_documents ADD COLUMN title_key TEXT;
CREATE UNIQUE INDEX common_documents_by_title_key ON common_documents (title_key);
