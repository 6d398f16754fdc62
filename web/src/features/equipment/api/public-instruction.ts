import { useEffect, useState } from 'react';

import { publicInstructionUrl, savedAtHeader } from '@/lib/offline-copy';
import { fetchRestWithHeaders } from '@/lib/rest';

export type PublicInstruction = { name: string; shortInstruction: string };

export type PublicInstructionState =
  | { kind: 'loading' }
  /** `savedAt`: the phone had no network and the service worker gave the copy saved then. */
  | { kind: 'loaded'; value: PublicInstruction; savedAt?: Date }
  | { kind: 'failed'; message: string };

/**
 * The public read of one instruction (wiki's GetPublicInstruction over REST): no token, and
 * none of grpc-web's code on the page a phone opens from a QR code.
 */
export async function fetchPublicInstruction(modelId: bigint) {
  const { result, headers } = await fetchRestWithHeaders<PublicInstruction>(publicInstructionUrl(modelId));
  const savedAt = headers?.get(savedAtHeader);
  return { result, savedAt: savedAt ? new Date(savedAt) : undefined };
}

/** How often a saved copy is read again while it is shown. */
export const savedCopyRetryMs = 10_000;

/**
 * The instruction of `modelId`, read again whenever the phone's network comes back, so that
 * a saved copy gives way to the current one by itself. What is shown stays when a read fails.
 */
export function usePublicInstruction(modelId: bigint | undefined): PublicInstructionState {
  const [state, setState] = useState<PublicInstructionState>({ kind: 'loading' });
  const [reads, setReads] = useState(0);
  const showsSavedCopy = state.kind === 'loaded' && state.savedAt !== undefined;

  useEffect(() => {
    const readAgain = () => setReads((count) => count + 1);
    window.addEventListener('online', readAgain);
    // `online` alone is not enough: it may come before the connection works (the read then
    // gets the saved copy again), and never when the phone has a network but not the portal.
    const retry = showsSavedCopy ? window.setInterval(readAgain, savedCopyRetryMs) : undefined;
    return () => {
      window.removeEventListener('online', readAgain);
      window.clearInterval(retry);
    };
  }, [showsSavedCopy]);

  useEffect(() => {
    if (modelId === undefined) return;
    let current = true;
    void fetchPublicInstruction(modelId).then(({ result, savedAt }) => {
      if (!current) return;
      setState((shown) => {
        if (result.ok) return { kind: 'loaded', value: result.data, savedAt };
        return shown.kind === 'loaded' ? shown : { kind: 'failed', message: result.message };
      });
    });
    return () => {
      current = false;
    };
  }, [modelId, reads]);

  return state;
}
