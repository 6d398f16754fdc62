import { timestampDate } from '@bufbuild/protobuf/wkt';
import { Paper, Stack, Typography } from '@mui/material';

import type { EnvironmentModelRef, PersonClearance } from '@/gen/portal/wiki/v1/wiki_pb';
import { formatDate, localDay } from '@/lib/dates';
import { equipmentStrings } from '@/lib/equipment-strings';
import { fullName } from '@/lib/person-name';

import { useDepartmentClearance } from '../api/equipment-queries';

const text = equipmentStrings.clearance;

/** One group of people (cleared, lapsing, not cleared) with what to say of each. */
function Group({
  title,
  people,
  detail,
}: {
  title: string;
  people: PersonClearance[];
  detail: (person: PersonClearance) => string;
}) {
  if (people.length === 0) return null;
  return (
    <section aria-label={title}>
      <Typography variant="subtitle2" component="h4">
        {title} ({people.length})
      </Typography>
      <Typography component="ul" sx={{ m: 0, pl: 3 }}>
        {people.map((person) => {
          const said = detail(person);
          return (
            <li key={String(person.userId)}>
              {fullName(person)}
              {said && ` — ${said}`}
            </li>
          );
        })}
      </Typography>
    </section>
  );
}

const lapsesOn = (person: PersonClearance) =>
  person.validUntil ? text.lapsesOn(formatDate(localDay(timestampDate(person.validUntil)))) : '';

/** Who in the department is cleared to operate one model, who is not, whose clearance lapses. */
function ModelClearance({ model, departmentId }: { model: EnvironmentModelRef; departmentId: bigint }) {
  const query = useDepartmentClearance(model.id, departmentId);
  if (!query.data) return null;
  const { people, requiredCourses } = query.data;
  return (
    <Paper variant="outlined" component="section" aria-label={model.name} sx={{ p: 2 }}>
      <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
        {model.name}
      </Typography>
      {requiredCourses.length === 0 ? (
        <Typography sx={{ color: 'text.secondary' }}>{text.noRequirements}</Typography>
      ) : people.length === 0 ? (
        <Typography sx={{ color: 'text.secondary' }}>{text.nobody}</Typography>
      ) : (
        <Stack spacing={1} sx={{ mt: 1 }}>
          <Group
            title={text.lapsingPeople}
            people={people.filter((person) => person.lapsing)}
            detail={lapsesOn}
          />
          <Group
            title={text.clearedPeople}
            people={people.filter((person) => person.cleared && !person.lapsing)}
            detail={lapsesOn}
          />
          <Group
            title={text.notClearedPeople}
            people={people.filter((person) => !person.cleared)}
            detail={(person) => text.missing(person.missingCourses.map((course) => course.title).join(', '))}
          />
        </Stack>
      )}
    </Paper>
  );
}

/**
 * For an equipment editor or an education manager: for each model of the department, who of
 * its people is cleared to operate it, who is not, and whose clearance lapses within 30 days.
 */
export function DepartmentClearance({
  models,
  departmentId,
}: {
  models: EnvironmentModelRef[];
  departmentId: bigint;
}) {
  return (
    <Stack spacing={2} component="section" aria-label={text.department} sx={{ mt: 4 }}>
      <Typography variant="h6" component="h2">
        {text.department}
      </Typography>
      <Typography sx={{ color: 'text.secondary' }}>{text.departmentHint}</Typography>
      {models.map((model) => (
        <ModelClearance key={String(model.id)} model={model} departmentId={departmentId} />
      ))}
    </Stack>
  );
}
