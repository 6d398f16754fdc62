-- «Забыли пароль?» (issue 39.3): the links sent and the requests the limits count.
--
-- A link's token is kept only as its SHA-256 (hex); it is good until
-- expires_at and once (used_at). A reset uses up every link of the person.
CREATE TABLE password_reset_tokens (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT
);
CREATE INDEX password_reset_tokens_by_user ON password_reset_tokens (user_id);
CREATE INDEX password_reset_tokens_by_expiry ON password_reset_tokens (expires_at);

-- The requests honoured within the limits' window, known login or not, so
-- that every auth replica enforces one limit: per login from one client
-- address, and per client address.
CREATE TABLE password_reset_requests (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at BIGINT NOT NULL,
    login_key TEXT NOT NULL,
    address_key TEXT NOT NULL
);
CREATE INDEX password_reset_requests_by_pair ON password_reset_requests (address_key, login_key, at);
CREATE INDEX password_reset_requests_by_time ON password_reset_requests (at);
