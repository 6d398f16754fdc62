-- The completing writer now writes a result's departments with its completion
-- instant and test itself, before the completing UPDATE of the attempt (issue
-- 23, the exam morning: fewer statements per hand-in). The trigger that carried
-- the completion from the attempt to its departments would now rewrite rows
-- just written with the same values, and for the writers before this release
-- (which write the departments after the completion) it never matched: dropped.
--
-- Kept: attempt_departments_carry_completion, which fills a department row
-- written without its completion, as a writer of an older release still does
-- (OLDEST_COMPATIBLE_READER); it now fires only for such a row, so this
-- release's inserts call no function. The rows written before 0007 were
-- filled by its backfill.
DROP TRIGGER attempts_carry_completion_to_departments ON attempts;
DROP FUNCTION attempts_carry_completion_to_departments();

DROP TRIGGER attempt_departments_carry_completion ON attempt_departments;
CREATE TRIGGER attempt_departments_carry_completion
BEFORE INSERT ON attempt_departments
FOR EACH ROW WHEN (NEW.completed_at IS NULL)
EXECUTE FUNCTION attempt_departments_carry_completion();
