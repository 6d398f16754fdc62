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

UPDATE attempt_departments d
SET completed_at = a.completed_at, test_id = a.test_id
FROM attempts a
WHERE a.id = d.attempt_id;

CREATE INDEX attempt_departments_by_completion
    ON attempt_departments (department_id, completed_at, attempt_id);
CREATE INDEX attempt_departments_by_test_completion
    ON attempt_departments (department_id, test_id, completed_at, attempt_id);

CREATE FUNCTION attempt_departments_carry_completion() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.completed_at IS NULL THEN
        SELECT a.completed_at, a.test_id INTO NEW.completed_at, NEW.test_id
        FROM attempts a WHERE a.id = NEW.attempt_id;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER attempt_departments_carry_completion
BEFORE INSERT ON attempt_departments
FOR EACH ROW EXECUTE FUNCTION attempt_departments_carry_completion();

CREATE FUNCTION attempts_carry_completion_to_departments() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE attempt_departments
    SET completed_at = NEW.completed_at, test_id = NEW.test_id
    WHERE attempt_id = NEW.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER attempts_carry_completion_to_departments
AFTER UPDATE OF completed_at ON attempts
FOR EACH ROW WHEN (NEW.completed_at IS DISTINCT FROM OLD.completed_at)
EXECUTE FUNCTION attempts_carry_completion_to_departments();
