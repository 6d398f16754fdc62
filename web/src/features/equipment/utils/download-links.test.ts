import { create } from '@bufbuild/protobuf';
import { timestampFromMs } from '@bufbuild/protobuf/wkt';
import { describe, expect, it } from 'vitest';

import { FileSchema } from '@/gen/portal/files/v1/files_pb';

import { linkRenewalMs } from './download-links';

const listedAt = Date.UTC(2026, 10, 23, 12, 0, 0);
const linkFor = (ms: number) => create(FileSchema, { urlExpiresAt: timestampFromMs(listedAt + ms) });

describe('linkRenewalMs', () => {
  it('lists again at half the soonest link’s remaining time', () => {
    expect(linkRenewalMs([linkFor(8 * 60_000), linkFor(4 * 60_000)], listedAt)).toBe(2 * 60_000);
  });

  it('never waits past 5 minutes, so 15-minute links are renewed in time even on a slow clock', () => {
    expect(linkRenewalMs([linkFor(15 * 60_000)], listedAt)).toBe(5 * 60_000);
    expect(linkRenewalMs([linkFor(40 * 60_000)], listedAt)).toBe(5 * 60_000);
  });

  it('never asks more often than every 30 s, even when this clock is ahead', () => {
    expect(linkRenewalMs([linkFor(-60_000)], listedAt)).toBe(30_000);
  });

  it('waits 5 minutes for a list with no links', () => {
    expect(linkRenewalMs([], listedAt)).toBe(5 * 60_000);
    expect(linkRenewalMs([create(FileSchema)], listedAt)).toBe(5 * 60_000);
  });
});
