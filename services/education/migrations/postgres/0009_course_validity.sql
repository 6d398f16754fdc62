-- Recertification (issue 24): a course's pass is valid this many months from
-- the day it was passed; 0 = it never expires. Expand only: a release that
-- does not know the column inserts courses with the default.
ALTER TABLE courses ADD COLUMN validity_months BIGINT NOT NULL DEFAULT 0 CHECK (validity_months >= 0);
