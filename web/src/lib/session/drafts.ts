// What a person has typed or chosen but not yet sent, kept in this tab's sessionStorage so
// that a reload does not lose it (a test's chosen answers). Every key starts with `prefix`
// and belongs to the signed-in person: the session's end removes them all (see ARCHITECTURE.md).

const prefix = 'portal.draft.';

/** The draft stored under `key` (for the caller to check), or undefined: none, unreadable, refused. */
export function readDraft(key: string): unknown {
  try {
    const stored = sessionStorage.getItem(prefix + key);
    return stored === null ? undefined : (JSON.parse(stored) as unknown);
  } catch {
    return undefined;
  }
}

/** Keeps `value` under `key`; a full or refused storage only loses the draft. */
export function writeDraft(key: string, value: unknown) {
  try {
    sessionStorage.setItem(prefix + key, JSON.stringify(value));
  } catch {
    // Private mode or a full quota: the draft is a convenience, the form still works.
  }
}

export function dropDraft(key: string) {
  try {
    sessionStorage.removeItem(prefix + key);
  } catch {
    // Nothing stored to drop.
  }
}

/** Removes every draft of this tab: the person signed out or their session ended. */
export function dropAllDrafts() {
  try {
    const keys = Array.from({ length: sessionStorage.length }, (_, index) => sessionStorage.key(index));
    for (const key of keys) if (key?.startsWith(prefix)) sessionStorage.removeItem(key);
  } catch {
    // Storage refused: nothing was stored either.
  }
}
