-- The search index of equipment models (with their short instructions) and units (issue 25): the DDL of
-- portal_kit::search::SQLITE_SCHEMA, verbatim. Rows written before it are
-- indexed at the service's start.
CREATE TABLE search_entries (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    entity_id BIGINT NOT NULL,
    scope BIGINT,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    terms TEXT NOT NULL,
    UNIQUE (kind, entity_id)
);
CREATE VIRTUAL TABLE search_terms USING fts5(
    terms, content = 'search_entries', content_rowid = 'id',
    tokenize = 'unicode61 remove_diacritics 0'
);
CREATE TRIGGER search_entries_added AFTER INSERT ON search_entries BEGIN
    INSERT INTO search_terms (rowid, terms) VALUES (new.id, new.terms);
END;
CREATE TRIGGER search_entries_removed AFTER DELETE ON search_entries BEGIN
    INSERT INTO search_terms (search_terms, rowid, terms) VALUES ('delete', old.id, old.terms);
END;
CREATE TRIGGER search_entries_changed AFTER UPDATE ON search_entries BEGIN
    INSERT INTO search_terms (search_terms, rowid, terms) VALUES ('delete', old.id, old.terms);
    INSERT INTO search_terms (rowid, terms) VALUES (new.id, new.terms);
END;
