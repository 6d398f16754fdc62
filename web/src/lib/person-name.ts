/** The parts of a person's name as the auth service keeps them (`lastName` is the patronymic). */
export type PersonName = { name: string; surname: string; lastName: string };

const join = (...parts: string[]) => parts.filter(Boolean).join(' ');

/**
 * A person's full name wherever it is shown in full (header, cabinet, lists):
 * "Фамилия Имя Отчество", the order of Russian staff rosters.
 */
export const fullName = (person: PersonName) => join(person.surname, person.name, person.lastName);

/** Spec §2, kept as written: the breadcrumb of a user shows name, surname, patronymic. */
export const crumbName = (person: PersonName) => join(person.name, person.surname, person.lastName);
