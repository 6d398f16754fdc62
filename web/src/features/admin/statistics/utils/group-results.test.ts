import { create } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';

import { TestResultSchema } from '@/gen/portal/education/v1/education_pb';

import { groupResults } from './group-results';

const result = (id: number, testId: number, title: string, userId: number) =>
  create(TestResultSchema, { id: BigInt(id), test: { id: BigInt(testId), title }, userId: BigInt(userId) });

const names: Record<string, string> = { '1': 'Яковлева', '2': 'Антонов' };

describe('groupResults', () => {
  it('groups by test, then by person, alphabetically, keeping each person’s attempts in order', () => {
    const groups = groupResults(
      [
        result(5, 1, 'Сердечно-лёгочная реанимация', 1),
        result(4, 2, 'Гигиена рук', 1),
        result(3, 1, 'Сердечно-лёгочная реанимация', 2),
        result(2, 1, 'Сердечно-лёгочная реанимация', 1),
      ],
      (userId) => names[String(userId)] ?? '',
    );
    expect(groups.map((group) => group.title)).toEqual(['Гигиена рук', 'Сердечно-лёгочная реанимация']);
    const cpr = groups[1]?.users;
    expect(cpr?.map((user) => user.name)).toEqual(['Антонов', 'Яковлева']);
    expect(cpr?.[1]?.attempts.map((attempt) => attempt.id)).toEqual([5n, 2n]);
  });

  it('gives nothing for no results', () => {
    expect(groupResults([], () => '')).toEqual([]);
  });
});
