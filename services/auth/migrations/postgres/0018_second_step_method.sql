-- How the first step of a sign-in waiting for its second step checked the
-- password ('password': the portal's own; 'directory': a bind to the
-- directory), so the session the second step opens is recorded with it.
-- A binary of the release before writes no method and records 'password'
-- for every second step anyway, which the default keeps.
ALTER TABLE mfa_challenges ADD COLUMN method TEXT NOT NULL DEFAULT 'password';
