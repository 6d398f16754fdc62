import {
  createContext,
  type Dispatch,
  type SetStateAction,
  useCallback,
  useContext,
  useEffect,
  useId,
  useState,
} from 'react';

// Unsaved input is never thrown away without asking (issue 19): a dialog or a page that holds
// some (`useUnsavedChanges`) asks before it closes, the portal asks before it leaves the page
// (`components/discard-dialog`'s `LeaveGuard`, react-router's blocker) and the browser asks before a reload or a closed tab
// (`beforeunload`). Forms say whether they hold any through `useDraftState`, editors through
// `useEditedReport`, to the dialog or page around them (`useDraftTracker`).

/** Whatever holds unsaved input now, by hook instance. */
const holders = new Set<string>();
/** Set just before the portal itself reloads the page after a save: nothing is lost then. */
let reloading = false;

function askBeforeUnload(event: BeforeUnloadEvent) {
  if (reloading || holders.size === 0) return;
  event.preventDefault();
}

function hold(id: string) {
  if (holders.size === 0) window.addEventListener('beforeunload', askBeforeUnload);
  holders.add(id);
}

function release(id: string) {
  holders.delete(id);
  if (holders.size === 0) window.removeEventListener('beforeunload', askBeforeUnload);
}

/** Whether anything on the page holds unsaved input. */
export const hasUnsavedChanges = () => holders.size > 0;

/** Reloads the page after a save (spec §4): what was typed is saved, so the browser need not ask. */
export function reloadSaved() {
  reloading = true;
  window.location.reload();
}

/**
 * While `dirty`, reloading or leaving the page asks; `confirmDiscard(close)` runs `close` at
 * once when nothing is unsaved, otherwise after the person agrees in the dialog the caller
 * renders (`<DiscardDialog {...discardDialog} />`).
 */
export function useUnsavedChanges(dirty: boolean) {
  const id = useId();
  const [pending, setPending] = useState<(() => void) | undefined>(undefined);

  useEffect(() => {
    if (!dirty) return;
    hold(id);
    return () => release(id);
  }, [dirty, id]);

  const confirmDiscard = (close: () => void) => {
    if (dirty) setPending(() => close);
    else close();
  };
  const discardDialog = {
    open: pending !== undefined,
    onStay: () => setPending(undefined),
    onDiscard: () => {
      setPending(undefined);
      pending?.();
    },
  };
  return { confirmDiscard, discardDialog };
}

type Report = (id: string, edited: boolean) => void;

/** Given by a dialog or a page (`<DraftContext value={report}>`) to the form inside it. */
export const DraftContext = createContext<Report>(() => undefined);

/**
 * A dialog's or a page's `report` for the form inside it, and whether that form now differs
 * from what it started with.
 */
export function useDraftTracker() {
  const [edited, setEdited] = useState<ReadonlySet<string>>(new Set());
  const report = useCallback<Report>(
    (id, changed) =>
      setEdited((current) => {
        if (current.has(id) === changed) return current;
        const next = new Set(current);
        if (changed) next.add(id);
        else next.delete(id);
        return next;
      }),
    [],
  );
  return { dirty: edited.size > 0, report };
}

/** Tells the surrounding dialog or page whether this part of its form was edited. */
export function useEditedReport(edited: boolean) {
  const id = useId();
  const report = useContext(DraftContext);
  useEffect(() => report(id, edited), [report, id, edited]);
  useEffect(() => () => report(id, false), [report, id]);
}

/** Plain data (strings, numbers, bigints, arrays, records) compared by value. */
function sameData(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  return (
    aKeys.length === bKeys.length &&
    aKeys.every((key) => sameData((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]))
  );
}

/**
 * `useState` for a form's values: the surrounding dialog or page learns whether they differ
 * from where they started (typed and then erased again is not a change).
 */
export function useDraftState<T>(initial: T | (() => T)): [T, Dispatch<SetStateAction<T>>] {
  const [start] = useState(initial);
  const [value, setValue] = useState(start);
  useEditedReport(!sameData(value, start));
  return [value, setValue];
}
