-- What the RPCs need beyond 0001: retired units, described common documents, a
-- logbook per unit with kinds and results, and named journals. The two tables
-- dropped here held no rows: no call wrote them before this migration.

ALTER TABLE environments ADD COLUMN retired_at BIGINT;
ALTER TABLE common_documents ADD COLUMN description TEXT NOT NULL DEFAULT '';

DROP TABLE maintenance_entries;
DROP TABLE journal_entries;

CREATE TABLE maintenance_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    environment_id BIGINT NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    performed_on TEXT NOT NULL,
    -- preventive, corrective, inspection or calibration.
    kind TEXT NOT NULL,
    performed_by TEXT NOT NULL,
    description TEXT NOT NULL,
    result TEXT NOT NULL,
    next_due TEXT,
    author_id BIGINT NOT NULL,
    author_name TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
-- A unit's latest entry (its maintenance standing) is the last of this order.
CREATE INDEX maintenance_by_unit ON maintenance_entries (environment_id, performed_on, id);

CREATE TABLE journals (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    environment_model_id BIGINT NOT NULL REFERENCES environment_models (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    -- The name as people read it (case and runs of spaces ignored), computed in Rust.
    name_key TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    UNIQUE (environment_model_id, name_key)
);

CREATE TABLE journal_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    journal_id BIGINT NOT NULL REFERENCES journals (id) ON DELETE CASCADE,
    entry_date TEXT NOT NULL,
    text TEXT NOT NULL,
    author_id BIGINT NOT NULL,
    author_name TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX journal_entries_by_journal ON journal_entries (journal_id);
