-- Metadata of stored blobs; the bytes live in the object store under `blob_key`.
CREATE TABLE files (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    id_related BIGINT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('document', 'video')),
    title TEXT NOT NULL,
    file_name TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size_bytes BIGINT NOT NULL,
    sha256 TEXT NOT NULL,
    blob_key TEXT NOT NULL UNIQUE,
    uploaded_by BIGINT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX files_by_related ON files (kind, id_related);
