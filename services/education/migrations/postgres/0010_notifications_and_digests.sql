-- The bell and the daily digest (issue 24).
--
-- A person's read marks on education's items (`education:course:<id>:<due>`):
-- a new deadline is a new key, so it shows unread again.
CREATE TABLE notification_reads (
    user_id BIGINT NOT NULL,
    item_key TEXT NOT NULL,
    read_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, item_key)
);

-- Who turned the daily digest off (no row: on). Education sends the digest,
-- so the choice about it lives beside the sending.
CREATE TABLE digest_preferences (
    user_id BIGINT PRIMARY KEY,
    enabled BIGINT NOT NULL CHECK (enabled IN (0, 1)),
    updated_at BIGINT NOT NULL
);

-- One row per person and day (in PORTAL_TIME_ZONE, `YYYY-MM-DD`): the lease
-- that makes every replica's job send a digest once. A replica takes a
-- person by inserting the row, or by moving `lease_until` of one neither sent
-- nor leased now; `sent_at` is set once the relay accepted the message; a
-- failed send releases the lease and sets `next_try_at`, before which the
-- daily job does not try again (the admin's "send now" does).
CREATE TABLE digest_deliveries (
    user_id BIGINT NOT NULL,
    day TEXT NOT NULL,
    lease_until BIGINT NOT NULL,
    next_try_at BIGINT NOT NULL DEFAULT 0,
    attempts BIGINT NOT NULL,
    sent_at BIGINT,
    last_error TEXT,
    PRIMARY KEY (user_id, day)
);

CREATE INDEX digest_deliveries_by_day ON digest_deliveries (day);
