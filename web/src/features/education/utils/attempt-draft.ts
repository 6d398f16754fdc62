import { dropDraft, readDraft, writeDraft } from '@/lib/session/drafts';

/** Question id → chosen answer id (both as decimal strings, the radio values). */
export type Chosen = Record<string, string>;

// Keyed by attempt: a reload gets the same attempt back from StartAttempt, and with it
// these choices; another attempt (a new try, another person) never sees them.
const key = (attemptId: bigint) => `attempt.${attemptId}`;

export function readChosen(attemptId: bigint): Chosen {
  const stored = readDraft(key(attemptId));
  if (typeof stored !== 'object' || stored === null) return {};
  return Object.fromEntries(
    Object.entries(stored).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

export const writeChosen = (attemptId: bigint, chosen: Chosen) => writeDraft(key(attemptId), chosen);

/** The attempt is over (completed, expired): its choices are not needed any more. */
export const dropChosen = (attemptId: bigint) => dropDraft(key(attemptId));

// The attempt this tab started on a test and has not handed in, so that a reload shows it in
// progress («Продолжить тест», its time left) rather than «Вы ещё не проходили». StartAttempt
// gives the same attempt back without a try. The server does not say whether a person has an
// open attempt without starting one: one opened in another tab or on another device is not
// known here (see issue 37's closing note).
const openKey = (testId: bigint) => `open-attempt.${testId}`;

export type OpenAttempt = { attemptId: bigint; expiresAt: Date };

export const rememberOpenAttempt = (testId: bigint, attemptId: bigint, expiresAt: Date) =>
  writeDraft(openKey(testId), { attemptId: String(attemptId), expiresAt: expiresAt.getTime() });

/** The attempt this tab has open on `testId`, if it has not expired by `now`. */
export function openAttemptOf(testId: bigint, now: Date): OpenAttempt | undefined {
  const stored = readDraft(openKey(testId));
  if (typeof stored !== 'object' || stored === null) return undefined;
  const { attemptId, expiresAt } = stored as Record<string, unknown>;
  if (typeof attemptId !== 'string' || !/^\d+$/.test(attemptId) || typeof expiresAt !== 'number') {
    return undefined;
  }
  if (expiresAt <= now.getTime()) return undefined;
  return { attemptId: BigInt(attemptId), expiresAt: new Date(expiresAt) };
}

/** The attempt was handed in or found over. */
export const forgetOpenAttempt = (testId: bigint) => dropDraft(openKey(testId));
