-- The search index of courses, articles and tests (issue 25): the DDL of
-- portal_kit::search::POSTGRES_SCHEMA, verbatim. Rows written before it are
-- indexed at the service's start.
CREATE TABLE search_entries (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    entity_id BIGINT NOT NULL,
    scope BIGINT,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    terms TEXT NOT NULL,
    terms_vector TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', terms)) STORED,
    UNIQUE (kind, entity_id)
);
CREATE INDEX search_entries_terms ON search_entries USING GIN (terms_vector);
