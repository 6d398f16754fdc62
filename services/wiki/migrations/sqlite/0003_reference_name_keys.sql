-- Reference names are unique as people read them (case, runs of spaces and
-- ё/е ignored; the key is computed in Rust), manufacturers included, which had
-- no unique name before. Rows from before this migration get their keys at
-- start (portal_kit::db::rekey); until then NULL keys collide with nothing.

ALTER TABLE countries ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX countries_by_name_key ON countries (name_key);

ALTER TABLE environment_types ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX environment_types_by_name_key ON environment_types (name_key);

ALTER TABLE manufacturers ADD COLUMN name_key TEXT;
CREATE UNIQUE INDEX manufacturers_by_name_key ON manufacturers (name_key);
