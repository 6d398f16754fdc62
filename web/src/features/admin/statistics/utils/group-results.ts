import type { TestResult } from '@/gen/portal/education/v1/education_pb';

export type UserAttempts = { userId: bigint; name: string; attempts: TestResult[] };
export type TestGroup = { testId: bigint; title: string; users: UserAttempts[] };

const collator = new Intl.Collator('ru-RU');

/**
 * Spec §2: results grouped by test, then by user. Tests and people in Russian alphabetical
 * order; each person's attempts stay in the order they came (newest first).
 */
export function groupResults(
  results: readonly TestResult[],
  nameOf: (userId: bigint) => string,
): TestGroup[] {
  const tests = new Map<bigint, { title: string; users: Map<bigint, TestResult[]> }>();
  for (const result of results) {
    const testId = result.test?.id ?? 0n;
    let test = tests.get(testId);
    if (!test) {
      test = { title: result.test?.title ?? '', users: new Map() };
      tests.set(testId, test);
    }
    const attempts = test.users.get(result.userId);
    if (attempts) attempts.push(result);
    else test.users.set(result.userId, [result]);
  }
  return Array.from(tests, ([testId, { title, users }]) => ({
    testId,
    title,
    users: Array.from(users, ([userId, attempts]) => ({ userId, name: nameOf(userId), attempts })).sort(
      (a, b) => collator.compare(a.name, b.name),
    ),
  })).sort((a, b) => collator.compare(a.title, b.title));
}
