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

const fold = (text: string) => text.toLocaleLowerCase('ru-RU').replaceAll('ё', 'е');

/**
 * Whether a user answers what an admin typed in the search field: every word of it
 * starts a word of the name or the login, whatever the case and ё/е ("смир ольг").
 */
export function matchesUserSearch(user: Named & { login: string }, search: string): boolean {
  const words = fold(join(listName(user), user.login)).split(/\s+/);
  return fold(search)
    .split(/\s+/)
    .filter(Boolean)
    .every((typed) => words.some((word) => word.startsWith(typed)));
}
