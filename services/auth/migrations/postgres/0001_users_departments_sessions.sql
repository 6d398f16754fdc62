-- Users with their statuses, positions, rights and departments, and the refresh
-- tokens of their sessions. Instants are Unix milliseconds; flags are 0/1
-- (sqlx's Any driver decodes neither BOOLEAN nor TIMESTAMP).

CREATE TABLE statuses (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    -- 1: users with this status cannot sign in, and their sessions end.
    blocks_sign_in BIGINT NOT NULL DEFAULT 0 CHECK (blocks_sign_in IN (0, 1))
);

INSERT INTO statuses (name, blocks_sign_in) VALUES
    ('Работает', 0),
    ('В отпуске', 0),
    ('На больничном', 0),
    ('Уволен', 1);

CREATE TABLE positions (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title TEXT NOT NULL UNIQUE
);

INSERT INTO positions (title) VALUES
    ('Главный врач'),
    ('Заведующий отделением'),
    ('Врач-анестезиолог-реаниматолог'),
    ('Врач-хирург'),
    ('Врач-кардиолог'),
    ('Старшая медицинская сестра'),
    ('Медицинская сестра палатная'),
    ('Медицинская сестра-анестезист'),
    ('Инженер по медицинской технике');

-- The names are the strings carried in access tokens; the ids are fixed.
CREATE TABLE rights (
    id BIGINT PRIMARY KEY,
    name TEXT NOT NULL UNIQUE
);

INSERT INTO rights (id, name) VALUES
    (1, 'UserManagement'),
    (2, 'EducationManagement'),
    (3, 'EquipmentEditing');

CREATE TABLE departments (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    title TEXT NOT NULL,
    created_at BIGINT NOT NULL
);

CREATE TABLE users (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name TEXT NOT NULL,
    surname TEXT NOT NULL,
    last_name TEXT NOT NULL,
    -- As the user chose it; `login_key` is its lower-case form, unique.
    login TEXT NOT NULL,
    login_key TEXT NOT NULL,
    email TEXT NOT NULL,
    -- argon2id PHC string.
    password_hash TEXT NOT NULL,
    status_id BIGINT REFERENCES statuses (id),
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    CONSTRAINT users_login_key UNIQUE (login_key)
);

CREATE TABLE department_users (
    department_id BIGINT NOT NULL REFERENCES departments (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (department_id, user_id)
);
CREATE INDEX department_users_by_user ON department_users (user_id);

CREATE TABLE user_positions (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    position_id BIGINT NOT NULL REFERENCES positions (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, position_id)
);

CREATE TABLE user_rights (
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    right_id BIGINT NOT NULL REFERENCES rights (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, right_id)
);

-- A family is one sign-in and every token rotated from it; revoking it ends the
-- session. Rotation and revocation both update the family row, so they serialise.
CREATE TABLE refresh_families (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    -- The expiry of the family's newest token; past it the family is purged.
    expires_at BIGINT NOT NULL,
    revoked_at BIGINT
);
CREATE INDEX refresh_families_by_user ON refresh_families (user_id);
CREATE INDEX refresh_families_by_expiry ON refresh_families (expires_at);

CREATE TABLE refresh_tokens (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    family_id BIGINT NOT NULL REFERENCES refresh_families (id) ON DELETE CASCADE,
    -- SHA-256 of the token, lower-case hex; the token itself is never stored.
    token_hash TEXT NOT NULL UNIQUE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    -- Set when the token was exchanged for its successor.
    used_at BIGINT
);
CREATE INDEX refresh_tokens_by_family ON refresh_tokens (family_id);
