-- Who vouches that a person is the HR system's employee of that number
-- (issue 37): 'sync' for people the staff sync created, 'admin' for people
-- an administrator linked on the user form. The sync keeps only those in
-- step (and holders of an admin right only when linked by an administrator).
-- A number with no link is an account the sync adopted by login before this
-- migration: left alone until an administrator confirms it. People who never
-- had a password were made by the sync.
ALTER TABLE users ADD COLUMN hr_link TEXT;
UPDATE users SET hr_link = 'sync' WHERE employee_number IS NOT NULL AND password_hash = '';
