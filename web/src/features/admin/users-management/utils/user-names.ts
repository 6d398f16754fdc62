import { groupByFirstLetter } from '@/lib/group-by-letter';
import { fullName, type PersonName } from '@/lib/person-name';

/**
 * Spec §2 groups users "by first letter of name". Read as the name the list shows,
 * "Фамилия Имя Отчество", so each group is a run of surnames, as in a paper roster.
 */
export const groupUsersByLetter = <T extends PersonName>(users: readonly T[]) =>
  groupByFirstLetter(users, fullName);

const fold = (text: string) => text.toLocaleLowerCase('ru-RU').replaceAll('ё', 'е');

/**
 * Whether a user answers what an admin typed in the search field: every word of it
 * starts a word of the name or the login, whatever the case and ё/е ("смир ольг").
 */
export function matchesUserSearch(user: PersonName & { login: string }, search: string): boolean {
  const words = fold(`${fullName(user)} ${user.login}`).split(/\s+/);
  return fold(search)
    .split(/\s+/)
    .filter(Boolean)
    .every((typed) => words.some((word) => word.startsWith(typed)));
}
