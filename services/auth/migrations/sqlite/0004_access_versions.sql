-- A person's access version: raised whenever what their access tokens say
-- stops being true (blocked; rights, departments or names changed). Tokens
-- carry the version they were signed at (`ver`), and every service refuses an
-- older one; services learn versions changed since `access_changed_at` (Unix
-- ms) from AccessRevocationService.
ALTER TABLE users ADD COLUMN access_version BIGINT NOT NULL DEFAULT 0;
ALTER TABLE users ADD COLUMN access_changed_at BIGINT NOT NULL DEFAULT 0;
CREATE INDEX users_by_access_change ON users (access_changed_at);
