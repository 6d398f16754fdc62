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

/** An attempt started and not yet handed in, and when it runs out. */
export type OpenAttempt = { attemptId: bigint; expiresAt: Date };
