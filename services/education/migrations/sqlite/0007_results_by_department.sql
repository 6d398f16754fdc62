-- The statistics page filtered by one department (issue 23): the filter was an
-- EXISTS probe per attempt walked newest first, so its page and its count grew
-- with the whole table (the education bench: p99 19.4 s at 1M results). A
-- department's row now carries its result's completion instant and test, so the
-- page is a range of these indexes read newest first and the count stops at its
-- cap inside the same range (store/statistics.rs).
--
-- Expand only: nullable columns, backfilled here. The triggers fill them for
-- every writer, this release's and an older one still running during a rolling
-- update, whichever of the two rows (the attempt's completion, the
-- department's) is written first.
ALTER TABLE attempt_departments ADD COLUMN completed_at BIGINT;
ALTER TABLE attempt_departments ADD COLUMN test_id BIGINT;

UPDATE attempt_departments
SET (completed_at, test_id) = (
    SELECT a.completed_at, a.test_id FROM attempts a WHERE a.id = attempt_departments.attempt_id
);

CREATE INDEX attempt_departments_by_completion
    ON attempt_departments (department_id, completed_at, attempt_id);
CREATE INDEX attempt_departments_by_test_completion
    ON attempt_departments (department_id, test_id, completed_at, attempt_id);

CREATE TRIGGER attempt_departments_carry_completion
AFTER INSERT ON attempt_departments
WHEN NEW.completed_at IS NULL
BEGIN
    UPDATE attempt_departments
    SET (completed_at, test_id) = (
        SELECT a.completed_at, a.test_id FROM attempts a WHERE a.id = NEW.attempt_id
    )
    WHERE attempt_id = NEW.attempt_id AND department_id = NEW.department_id;
END;

CREATE TRIGGER attempts_carry_completion_to_departments
AFTER UPDATE OF completed_at ON attempts
WHEN NEW.completed_at IS NOT OLD.completed_at
BEGIN
    UPDATE attempt_departments
    SET completed_at = NEW.completed_at, test_id = NEW.test_id
    WHERE attempt_id = NEW.id;
END;
