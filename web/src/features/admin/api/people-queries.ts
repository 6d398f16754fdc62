import { useQuery } from '@connectrpc/connect-query';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
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
