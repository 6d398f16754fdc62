-- A person's read marks on the wiki's bell items (issue 24), by the item's
-- stable key (`wiki:maintenance:<unit id>:<due date>`): a new due date is a
-- new key, so it shows unread again.
CREATE TABLE notification_reads (
    user_id BIGINT NOT NULL,
    item_key TEXT NOT NULL,
    read_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, item_key)
);
