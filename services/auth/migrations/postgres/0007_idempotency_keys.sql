-- Idempotency keys (issue 21, portal_kit::idempotency): a write retried with
-- the same key by the same caller returns the first answer. One row per
-- (caller, method, key); the answer columns stay NULL while the first call
-- runs. Rows older than 24 h are swept.
CREATE TABLE idempotency_keys (
    principal TEXT NOT NULL,
    method TEXT NOT NULL,
    idempotency_key TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    grpc_status BIGINT,
    response_headers TEXT,
    response_body BYTEA,
    response_trailers TEXT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (principal, method, idempotency_key)
);

CREATE INDEX idempotency_keys_by_age ON idempotency_keys (created_at);
