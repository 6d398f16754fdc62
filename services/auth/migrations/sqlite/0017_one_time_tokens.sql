-- A first sign-in without an administrator typing a password (issue 39.3b):
-- the one-time tokens of «Забыли пароль?» gain a purpose, so invitations by
-- e-mail and printed first sign-in codes are kept, limited and used up the
-- same way (hashed, good until expires_at and once).
--
-- `reset`: a reset link (30 minutes); `invitation`: an invitation's link
-- (72 hours); `first-sign-in-code`: a printed code (72 hours), only good
-- with its person's login. A new invitation or code voids the person's
-- older one of its purpose; a password set voids every one.
ALTER TABLE password_reset_tokens ADD COLUMN purpose TEXT NOT NULL DEFAULT 'reset';

-- What the limits count: `reset` a reset requested, `first-sign-in-code` a
-- wrong code entered (per login from one client address, per client address).
ALTER TABLE password_reset_requests ADD COLUMN purpose TEXT NOT NULL DEFAULT 'reset';
