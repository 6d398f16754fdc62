-- Sign-in attempts within the limits' window, so that every auth replica
-- enforces one limit. A row is written before the password is checked (so
-- parallel guesses count at once), marked failed after a wrong one, and deleted
-- after a right one or a cancelled call. Keys are NULL where they do not count:
-- login_key only for devices not known to that person.
CREATE TABLE sign_in_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at BIGINT NOT NULL,
    address_key TEXT NOT NULL,
    login_key TEXT,
    device_key TEXT,
    failed INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX sign_in_attempts_by_address ON sign_in_attempts (address_key, at);
CREATE INDEX sign_in_attempts_by_login ON sign_in_attempts (login_key, at);
CREATE INDEX sign_in_attempts_by_device ON sign_in_attempts (device_key, at);
CREATE INDEX sign_in_attempts_by_time ON sign_in_attempts (at);

-- Browsers that have signed in as a person: the SHA-256 of the device token in
-- their cookie. One browser (a ward PC) may be known for several people.
CREATE TABLE known_devices (
    token_hash TEXT NOT NULL,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    last_used_at BIGINT NOT NULL,
    PRIMARY KEY (token_hash, user_id)
);
CREATE INDEX known_devices_by_use ON known_devices (last_used_at);
