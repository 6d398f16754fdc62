-- Equipment models, units, their logbook and journals, and reference data.
-- Department ids belong to auth: no foreign keys across services.

CREATE TABLE countries (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE);
CREATE TABLE manufacturers (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    country_id BIGINT REFERENCES countries (id) ON DELETE SET NULL
);
CREATE TABLE environment_types (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL UNIQUE);
CREATE TABLE common_documents (id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, url TEXT NOT NULL);

CREATE TABLE environment_models (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    brand_name TEXT NOT NULL,
    description TEXT NOT NULL,
    -- Sanitised HTML (ammonia) of the short operating instruction.
    short_instruction TEXT NOT NULL,
    manufacturer_id BIGINT REFERENCES manufacturers (id) ON DELETE SET NULL,
    environment_type_id BIGINT REFERENCES environment_types (id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE environments (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    environment_model_id BIGINT NOT NULL REFERENCES environment_models (id) ON DELETE CASCADE,
    department_id BIGINT NOT NULL,
    serial_number TEXT NOT NULL,
    inventory_number TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);
CREATE INDEX environments_by_model ON environments (environment_model_id);
CREATE INDEX environments_by_department ON environments (department_id);

CREATE TABLE maintenance_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    environment_model_id BIGINT NOT NULL REFERENCES environment_models (id) ON DELETE CASCADE,
    environment_id BIGINT REFERENCES environments (id) ON DELETE CASCADE,
    performed_on TEXT NOT NULL,
    performed_by TEXT NOT NULL,
    description TEXT NOT NULL,
    next_due TEXT,
    author_id BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX maintenance_by_model ON maintenance_entries (environment_model_id);

CREATE TABLE journal_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    environment_model_id BIGINT NOT NULL REFERENCES environment_models (id) ON DELETE CASCADE,
    journal TEXT NOT NULL,
    entry_date TEXT NOT NULL,
    text TEXT NOT NULL,
    author_id BIGINT NOT NULL,
    author_name TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX journal_by_model ON journal_entries (environment_model_id);
