-- Where each session is used from, for the person's list of their signed-in
-- devices (issue 39.5): the browser's user agent (at most 512 characters) and
-- client address of its sign-in or latest renewal, and when that was.
-- Sessions from before this migration know none of it until they renew.
ALTER TABLE refresh_families ADD COLUMN user_agent TEXT;
ALTER TABLE refresh_families ADD COLUMN address TEXT;
ALTER TABLE refresh_families ADD COLUMN last_seen_at BIGINT;
