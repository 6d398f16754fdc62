-- The audit log (issue 25): the DDL of portal_kit::audit::SQLITE_SCHEMA,
-- verbatim (a kit test compares them). Append-only: the triggers refuse every
-- UPDATE and every DELETE but the retention purge's.
CREATE TABLE audit_records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at BIGINT NOT NULL,
    actor_kind TEXT NOT NULL,
    actor_user_id BIGINT,
    actor_client_id TEXT,
    actor_login TEXT,
    address TEXT,
    request_id TEXT,
    entity TEXT NOT NULL,
    entity_id BIGINT,
    action TEXT NOT NULL,
    changes TEXT NOT NULL,
    reason TEXT
);
CREATE INDEX audit_records_time ON audit_records (at, id);
CREATE INDEX audit_records_entity ON audit_records (entity, entity_id, at);
CREATE INDEX audit_records_actor ON audit_records (actor_user_id, at);
CREATE TABLE audit_purge (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    before BIGINT NOT NULL
);
INSERT INTO audit_purge (id, before) VALUES (1, 0);
CREATE TRIGGER audit_records_no_update BEFORE UPDATE ON audit_records
BEGIN
    SELECT RAISE(ABORT, 'audit records are append-only');
END;
CREATE TRIGGER audit_records_no_delete BEFORE DELETE ON audit_records
WHEN old.at >= (SELECT before FROM audit_purge WHERE id = 1)
BEGIN
    SELECT RAISE(ABORT, 'audit records are append-only');
END;
