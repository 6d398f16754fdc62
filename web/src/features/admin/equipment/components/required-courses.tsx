import { Button, Paper, Stack, Typography } from '@mui/material';
import { useState } from 'react';

import { MultiSelect } from '@/components/multi-select';
import { PageHeader } from '@/components/page-header';
import type { EnvironmentModel } from '@/gen/portal/wiki/v1/wiki_pb';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';
import { notify } from '@/lib/notifications';
import { Right, useHasRight } from '@/lib/session/rights';

import { useWithoutBlocked } from '../../api/people-queries';
import {
  useAssignCourse,
  useCourses,
  useDepartmentMembers,
  useSetRequiredCourses,
} from '../api/wiki-queries';

const text = equipmentStrings.clearance;
const byTitle = new Intl.Collator('ru-RU');

/**
 * «Обучение для допуска»: the courses a model requires, chosen from education's courses; and,
 * for an education manager, one button that assigns them to everyone in the departments
 * holding the model (education's AssignCourse by user id, each department's members from auth).
 */
export function RequiredCourses({ model }: { model: EnvironmentModel }) {
  const courses = useCourses();
  const save = useSetRequiredCourses();
  const members = useDepartmentMembers();
  const assign = useAssignCourse();
  const staff = useWithoutBlocked();
  const educator = useHasRight(Right.EducationManagement) === true;
  const [chosen, setChosen] = useState<bigint[]>(model.requiredCourseIds);

  const known = courses.data?.courses ?? [];
  // A required course the reader's list lacks (not theirs to list) still shows, by id.
  const options = [
    ...known.map((course) => ({ id: course.id, label: course.title })),
    ...model.requiredCourseIds
      .filter((id) => !known.some((course) => course.id === id))
      .map((id) => ({ id, label: `#${String(id)}` })),
  ].sort((a, b) => byTitle.compare(a.label, b.label));

  const onSave = () =>
    save.mutateAsync({ environmentModelId: model.id, courseIds: chosen }).then(
      () => notify.success(text.saved),
      (error: unknown) => notify.error(errorMessage(error)),
    );

  const onAssign = async () => {
    const departments = [...new Set(model.environments.map((unit) => unit.departmentId))];
    if (departments.length === 0 || model.requiredCourseIds.length === 0) {
      notify.error(text.assignNothing);
      return;
    }
    try {
      const people = new Set<bigint>();
      for (const departmentId of departments) {
        const answer = await members.mutateAsync({ departmentId });
        answer.department?.users.forEach((user) => people.add(user.id));
      }
      // A blocked (dismissed) person is never assigned a course.
      const userIds = await staff.withoutBlocked([...people]);
      for (const courseId of model.requiredCourseIds) {
        await assign.mutateAsync({ courseId, userIds });
      }
      notify.success(text.assigned(userIds.length));
    } catch (error) {
      notify.error(errorMessage(error));
    }
  };

  const busy = save.isPending || members.isPending || staff.isPending || assign.isPending;
  return (
    <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
      <PageHeader title={text.requiredTitle} />
      <Typography sx={{ color: 'text.secondary', mb: 2 }}>{text.requiredHint}</Typography>
      <MultiSelect
        label={text.coursesLabel}
        options={options}
        value={chosen}
        onChange={setChosen}
        disabled={busy}
      />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ mt: 2 }}>
        <Button variant="contained" onClick={() => void onSave()} disabled={busy}>
          {text.save}
        </Button>
        {educator && (
          <Button onClick={() => void onAssign()} disabled={busy}>
            {text.assign}
          </Button>
        )}
      </Stack>
    </Paper>
  );
}
