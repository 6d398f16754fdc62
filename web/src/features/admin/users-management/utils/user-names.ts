import { groupByFirstLetter } from '@/lib/group-by-letter';

type Named = { name: string; surname: string; lastName: string };

const join = (...parts: string[]) => parts.filter(Boolean).join(' ');

/** How staff lists name a person: "Фамилия Имя Отчество", the order of Russian rosters. */
export const listName = (user: Named) => join(user.surname, user.name, user.lastName);

/** Spec §2: the breadcrumb of a user shows name, surname, patronymic. */
export const crumbName = (user: Named) => join(user.name, user.surname, user.lastName);

/**
 * Spec §2 groups users "by first letter of name". Read as the name the list shows,
 * "Фамилия Имя Отчество", so each group is a run of surnames, as in a paper roster.
 */
export const groupUsersByLetter = <T extends Named>(users: readonly T[]) =>
  groupByFirstLetter(users, listName);
