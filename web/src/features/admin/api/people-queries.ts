import { skipToken, useMutation, useQuery } from '@connectrpc/connect-query';

import type { Choice } from '@/components/multi-select';
import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { adminStrings } from '@/lib/admin-strings';
import { fullName } from '@/lib/person-name';

export type Person = { id: bigint; label: string; departmentIds: bigint[] };

/**
 * Departments, and their members by full name ("Фамилия Имя Отчество"). An education admin
 * may not read the full user list (UserManagement's); every admin-type right reads department
 * members, so people outside every department are not offered.
 */
export function useDepartmentsAndPeople() {
  const query = useQuery(AuthService.method.listDepartmentsWithUsers);
  const departments = query.data?.departments ?? [];
  const people = new Map<bigint, Person>();
  for (const department of departments) {
    for (const member of department.users) {
      const person = people.get(member.id);
      if (person) person.departmentIds.push(department.id);
      else people.set(member.id, { id: member.id, label: fullName(member), departmentIds: [department.id] });
    }
  }
  return { isPending: query.isPending, departments, people };
}

// Department lists name members without their status; who is blocked (dismissed: cannot sign
// in) auth tells through ResolveStaff, which the holders of EducationManagement and
// UserManagement — those who assign courses — may call.

/** Of `ids`, the people who are blocked, as auth answers for them. */
const blockedOf = (answer: { people: { userId: bigint; blocked: boolean }[] }) =>
  new Set(answer.people.filter((person) => person.blocked).map((person) => person.userId));

/**
 * The people a course may be assigned to, as choices: a blocked person is not offered
 * (issue 37), though one already assigned still shows, marked, so that saving the course
 * does not silently drop them.
 */
export function useAssigneeChoices(): Choice[] {
  const { people } = useDepartmentsAndPeople();
  const ids = [...people.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const staff = useQuery(AuthService.method.resolveStaff, ids.length > 0 ? { userIds: ids } : skipToken);
  const blocked = staff.data ? blockedOf(staff.data) : new Set<bigint>();
  return [...people.values()].map((person) =>
    blocked.has(person.id)
      ? {
          id: person.id,
          label: adminStrings.education.course.blockedAssignee(person.label),
          notOffered: true,
        }
      : { id: person.id, label: person.label },
  );
}

/** Drops the blocked from `userIds` before a course is assigned to them all at once. */
export function useWithoutBlocked() {
  const resolve = useMutation(AuthService.method.resolveStaff);
  return {
    isPending: resolve.isPending,
    withoutBlocked: async (userIds: bigint[]) => {
      if (userIds.length === 0) return userIds;
      const blocked = blockedOf(await resolve.mutateAsync({ userIds }));
      return userIds.filter((id) => !blocked.has(id));
    },
  };
}
