import { useEffect, useState } from 'react';

/** The time now, again every `everyMs`: what is shown as time left stays true while it shows. */
export function useNow(everyMs: number) {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
