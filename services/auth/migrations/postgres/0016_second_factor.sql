-- Two-step sign-in (issue 39.4): TOTP (RFC 6238) for those who can change
-- records, optional for everyone else.
--
-- A person's authenticator secret, sealed with AES-256-GCM under a key
-- derived from the services' internal key (PORTAL_INTERNAL_KEY_FILE), so a
-- dump of this database alone does not give it away. Pending until
-- confirmed_at; last_step is the newest TOTP step accepted, so a code is
-- taken once.
CREATE TABLE mfa_factors (
    user_id BIGINT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    secret_sealed TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    confirmed_at BIGINT,
    last_step BIGINT NOT NULL DEFAULT 0
);

-- One-time recovery codes, kept as the SHA-256 of the code (80 random bits).
CREATE TABLE mfa_recovery_codes (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    code_hash TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX mfa_recovery_codes_by_user ON mfa_recovery_codes (user_id, code_hash);

-- A sign-in whose password was right, waiting for its second step: the
-- token (SHA-256) is good until expires_at, once, for this person and the
-- device token presented (its hash; NULL: none), and dies at its fifth
-- wrong code.
CREATE TABLE mfa_challenges (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    device_hash TEXT,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0,
    used_at BIGINT
);
CREATE INDEX mfa_challenges_by_expiry ON mfa_challenges (expires_at);

-- Wrong codes per person, counted over a window shared by every replica:
-- past the limit that person waits; nobody else does.
CREATE TABLE mfa_failures (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    at BIGINT NOT NULL
);
CREATE INDEX mfa_failures_by_user ON mfa_failures (user_id, at);

-- Devices (their token's hash, as known_devices keeps it) that finished the
-- second step as this person: they skip it for 30 days from verified_at.
CREATE TABLE mfa_trusted_devices (
    device_hash TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    verified_at BIGINT NOT NULL,
    PRIMARY KEY (device_hash, user_id)
);
