-- Other hospital systems as clients (issue 21). A service account is not a
-- user: it has its own table, never a login, rights or departments. Scopes
-- are the granted scope strings separated by spaces. `access_version` is
-- raised when what its tokens say stops being true (disabled, enabled, scopes
-- changed); services learn versions changed since `access_changed_at` (Unix
-- ms), as users'. Instants are Unix ms; flags 0/1.
CREATE TABLE service_accounts (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    -- `svc-` and 16 hex digits.
    client_id TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    -- The name as people tell names apart (case, spaces, ё/е aside), unique.
    name_key TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    owner_id BIGINT NOT NULL REFERENCES users (id),
    scopes TEXT NOT NULL DEFAULT '',
    active BIGINT NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
    -- PEM of the key its client assertions are signed with; '' for none.
    public_key TEXT NOT NULL DEFAULT '',
    access_version BIGINT NOT NULL DEFAULT 0,
    access_changed_at BIGINT NOT NULL DEFAULT 0,
    last_used_at BIGINT,
    last_used_from TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL
);
CREATE INDEX service_accounts_by_access_change ON service_accounts (access_changed_at);

-- Client secrets: only their SHA-256 (hex); at most two alive per account.
CREATE TABLE service_account_secrets (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    account_id BIGINT NOT NULL REFERENCES service_accounts (id) ON DELETE CASCADE,
    secret_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_used_at BIGINT
);
CREATE INDEX service_account_secrets_by_account ON service_account_secrets (account_id);

-- Failed token requests per client id (any id sent, known or not), within
-- the limit's window; older rows are purged.
CREATE TABLE service_token_failures (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    client_id TEXT NOT NULL,
    at BIGINT NOT NULL
);
CREATE INDEX service_token_failures_by_client ON service_token_failures (client_id, at);
CREATE INDEX service_token_failures_by_time ON service_token_failures (at);

-- The `jti` of client assertions already used, until they expire: an
-- assertion is good for one token.
CREATE TABLE service_assertion_ids (
    account_id BIGINT NOT NULL REFERENCES service_accounts (id) ON DELETE CASCADE,
    jti TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    PRIMARY KEY (account_id, jti)
);
CREATE INDEX service_assertion_ids_by_expiry ON service_assertion_ids (expires_at);
