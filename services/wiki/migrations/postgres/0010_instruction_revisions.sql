-- Revisions of models' short instructions (issue 25): every save that changes
-- an instruction writes the version it saved, with who saved it and when, in
-- the save's transaction; a model saved before this migration gets its
-- instruction of then (no author, author_id NULL) on its first save after.
-- Restoring a revision is a new save. Authors are auth's user ids, so no
-- foreign key; their name is as the token gave it.

CREATE TABLE instruction_revisions (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    environment_model_id BIGINT NOT NULL REFERENCES environment_models (id) ON DELETE CASCADE,
    short_instruction TEXT NOT NULL,
    author_id BIGINT,
    author_name TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
CREATE INDEX instruction_revisions_by_model ON instruction_revisions (environment_model_id, id);
