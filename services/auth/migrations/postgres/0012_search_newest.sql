-- Search walks a kind's newest items the reader may open before it asks the
-- full-text index for a word's every match (issue 25's bench: a common word
-- at 100,000 items): portal_kit::search::NEWEST_INDEXES, verbatim.
CREATE INDEX search_entries_newest ON search_entries (kind, id);
CREATE INDEX search_entries_newest_in_scope ON search_entries (kind, scope, id);
