import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { callRest } from '@/lib/authorized-fetch';

// The bell (issue 24) over the gateway's REST routes /api/notification/*: the gateway asks
// education and the wiki at once and merges their items, so one call fills the bell.

/** One item: a course due, maintenance due (later a clearance lapsing). */
export type Notification = {
  /** Stable; its prefix names the service that keeps the read mark. */
  id: string;
  kind: string;
  title: string;
  /** The item's page in this client. */
  link: string;
  /** `YYYY-MM-DD`. */
  dueDate: string;
  overdue: boolean;
  read: boolean;
};

export type MyNotifications = {
  notifications: Notification[];
  unread: number;
  /** False when a service did not answer and its items are missing. */
  complete: boolean;
};

const mine = ['notification', 'get-mine'] as const;

/** Asked again every 5 minutes: a deadline passes while a ward PC stays open. */
const REFRESH_MS = 5 * 60 * 1000;

export function useMyNotifications() {
  return useQuery({
    queryKey: mine,
    queryFn: () => callRest<MyNotifications>('/api/notification/get-mine'),
    refetchInterval: REFRESH_MS,
  });
}

export function useMarkRead() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (ids: string[]) => callRest<null>('/api/notification/mark-read', { ids }),
    onSettled: () => client.invalidateQueries({ queryKey: mine }),
  });
}
