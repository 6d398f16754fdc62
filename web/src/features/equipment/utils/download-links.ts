import type { File } from '@/gen/portal/files/v1/files_pb';

/** Never later than this: a clock behind the server's would stretch the links' time. */
const atMost = 5 * 60_000;
/** Never sooner, whatever a clock ahead of the server's says. */
const atLeast = 30_000;

/**
 * How long a list of documents may be shown before it is asked for again, so that the
 * download links on their URLs (each working until `urlExpiresAt`) never go stale while
 * the page stays open: half the soonest link's remaining time, as this clock reads it at
 * `listedAt`, kept between 30 s and 5 minutes.
 */
export function linkRenewalMs(files: readonly File[], listedAt: number): number {
  const ends = files.flatMap((file) =>
    file.urlExpiresAt === undefined ? [] : [Number(file.urlExpiresAt.seconds) * 1000],
  );
  if (ends.length === 0) return atMost;
  const half = (Math.min(...ends) - listedAt) / 2;
  return Math.min(atMost, Math.max(atLeast, half));
}
