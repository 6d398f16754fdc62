-- The HR system's own keys (issue 21), by which it keeps staff in step: a
-- person's employee number, a department's and a position's code. NULL for
-- what HR does not keep (people and departments made in the portal, the seeded
-- positions until HR names them); the service never stores an empty key. A
-- unique index lets any number of NULLs through on both backends.
ALTER TABLE users ADD COLUMN employee_number TEXT;
CREATE UNIQUE INDEX users_employee_number ON users (employee_number);
ALTER TABLE departments ADD COLUMN code TEXT;
CREATE UNIQUE INDEX departments_code ON departments (code);
ALTER TABLE positions ADD COLUMN code TEXT;
CREATE UNIQUE INDEX positions_code ON positions (code);
