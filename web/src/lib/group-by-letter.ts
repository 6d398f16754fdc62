export type LetterGroup<T> = { letter: string; items: T[] };

const collator = new Intl.Collator('ru-RU');

/**
 * Spec §9: lists grouped by the uppercase first letter of a title or name. Groups and the
 * items inside them follow Russian alphabetical order; a blank name goes under '#'.
 */
export function groupByFirstLetter<T>(items: readonly T[], nameOf: (item: T) => string): LetterGroup<T>[] {
  const sorted = items
    .map((item) => ({ item, name: nameOf(item).trim() }))
    .sort((a, b) => collator.compare(a.name, b.name));
  const groups = new Map<string, T[]>();
  for (const { item, name } of sorted) {
    const letter = name.charAt(0).toLocaleUpperCase('ru-RU') || '#';
    const group = groups.get(letter);
    if (group) group.push(item);
    else groups.set(letter, [item]);
  }
  return Array.from(groups, ([letter, members]) => ({ letter, items: members }));
}
