-- A video's unguessable key: an anonymous viewer opens a video by it, never by
-- its sequential id. Videos saved before keys have '' and stay open by id, as
-- the rich text that embeds them already links them so.
ALTER TABLE files ADD COLUMN public_key TEXT NOT NULL DEFAULT '';
