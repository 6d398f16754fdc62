import { useRef, useState } from 'react';

import type { UploadControl } from './authorized-fetch';

/**
 * The state of one upload at a time (`postForm`'s control): how much of the file is sent
 * (undefined when none runs), and its cancelling.
 */
export function useUpload() {
  const [sent, setSent] = useState<number | undefined>(undefined);
  const controller = useRef<AbortController | undefined>(undefined);

  /** A new upload begins: its control, for `postForm`. */
  const start = (): UploadControl => {
    const current = new AbortController();
    controller.current = current;
    setSent(0);
    return { onProgress: setSent, signal: current.signal };
  };
  /** The upload answered (or failed, or was cancelled); true when it was cancelled. */
  const finish = (): boolean => {
    const cancelled = controller.current?.signal.aborted ?? false;
    controller.current = undefined;
    setSent(undefined);
    return cancelled;
  };
  const cancel = () => controller.current?.abort();
  return { sent, start, finish, cancel };
}
