-- Single sign-on by OpenID Connect (issue 39.2).
--
-- A flow between StartSso and FinishSso: kept by the SHA-256 of its state,
-- good until expires_at (10 minutes) and once (FinishSso deletes it). The
-- nonce and the PKCE verifier live only here, never in the browser.
CREATE TABLE sso_flows (
    state_hash TEXT PRIMARY KEY,
    nonce TEXT NOT NULL,
    pkce_verifier TEXT NOT NULL,
    return_to TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
-- Each start forgets the expired flows: by this, not by reading them all.
CREATE INDEX sso_flows_by_expiry ON sso_flows (expires_at);

-- Which person a provider's subject (`iss`, `sub`) signed in as, so a
-- back-channel logout naming only the subject finds them.
CREATE TABLE sso_identities (
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    linked_at BIGINT NOT NULL,
    PRIMARY KEY (issuer, subject)
);

-- A logout token's `jti`, until its expiry: each token ends sessions once.
CREATE TABLE sso_logout_tokens (
    jti TEXT PRIMARY KEY,
    expires_at BIGINT NOT NULL
);
CREATE INDEX sso_logout_tokens_by_expiry ON sso_logout_tokens (expires_at);

-- A session opened by single sign-on: the provider's session id (`sid`),
-- '' when the provider named none; NULL for every other session.
ALTER TABLE refresh_families ADD COLUMN sso_session TEXT;
CREATE INDEX refresh_families_by_sso_session ON refresh_families (sso_session)
    WHERE sso_session IS NOT NULL;

-- A sign-in by single sign-on waiting for the portal's second step keeps
-- the provider's session, for the session that step opens.
ALTER TABLE mfa_challenges ADD COLUMN sso_session TEXT;
