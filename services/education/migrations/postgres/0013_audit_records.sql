-- The audit log (issue 25): the DDL of portal_kit::audit::POSTGRES_SCHEMA,
-- verbatim (a kit test compares them). Append-only: the triggers refuse every
-- UPDATE and every DELETE but the retention purge's.
CREATE TABLE audit_records (
    id BIGSERIAL PRIMARY KEY,
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
CREATE FUNCTION audit_records_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' THEN
        IF OLD.at < COALESCE(NULLIF(current_setting('portal.audit_purge_before', true), ''), '0')::BIGINT THEN
            RETURN OLD;
        END IF;
    END IF;
    RAISE EXCEPTION 'audit records are append-only';
END
$$;
CREATE TRIGGER audit_records_no_change BEFORE UPDATE OR DELETE ON audit_records
    FOR EACH ROW EXECUTE FUNCTION audit_records_append_only();
CREATE TRIGGER audit_records_no_truncate BEFORE TRUNCATE ON audit_records
    FOR EACH STATEMENT EXECUTE FUNCTION audit_records_append_only();
