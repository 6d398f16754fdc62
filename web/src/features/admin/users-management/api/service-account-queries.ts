import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';

import { callRest } from '@/lib/authorized-fetch';

// Other hospital systems' accounts (issue 21) over the gateway's REST routes
// /api/service-account/*, with the access token; a refusal rejects with the envelope's
// Russian message (`RestError`). Instants are RFC 3339 strings, ids JSON numbers.

/** The scopes a service account may be given, in the order the form lists them. */
export const scopes = [
  'staff.read',
  'staff.write',
  'training.read',
  'training.assign',
  'equipment.read',
  'equipment.write',
] as const;

/** One live client secret: only its id and times, never the secret itself. */
export type ServiceSecret = { id: number; createdAt: string; lastUsedAt: string | null };

export type ServiceAccount = {
  id: number;
  clientId: string;
  name: string;
  description: string;
  ownerId: number;
  ownerName: string;
  scopes: string[];
  active: boolean;
  hasPublicKey: boolean;
  secrets: ServiceSecret[];
  lastUsedAt: string | null;
  /** The address of the last token request; empty (or null) before the first. */
  lastUsedFrom: string | null;
  createdAt: string;
};

/** What the create and edit forms send. */
export type ServiceAccountValues = { name: string; description: string; scopes: string[]; ownerId: number };

/** A secret as it is shown the one time: the account's client id beside it. */
export type IssuedSecret = { clientId: string; clientSecret: string };

const queryKey = ['service-accounts'] as const;
const route = (name: string) => `/api/service-account/${name}`;

export const useServiceAccounts = () =>
  useQuery({ queryKey, queryFn: () => callRest<ServiceAccount[]>(route('get-all')) });

/** One account, found in the list (the list is what the REST surface serves). */
export function useServiceAccount(id: bigint | undefined) {
  const query = useServiceAccounts();
  return {
    query,
    account: id === undefined ? undefined : query.data?.find((account) => BigInt(account.id) === id),
  };
}

/** A change to accounts: the list is asked for again before the change counts as done. */
function useChange<I, O>(call: (input: I) => Promise<O>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: () => queryClient.invalidateQueries({ queryKey }),
  });
}

export const useCreateServiceAccount = () =>
  useChange((values: ServiceAccountValues) =>
    callRest<{ id: number; clientId: string; clientSecret: string }>(route('create'), values),
  );

export const useUpdateServiceAccount = () =>
  useChange((input: ServiceAccountValues & { id: number }) => callRest<unknown>(route('update'), input));

/** A new secret beside the live one; with two alive the server drops the older. */
export const useRotateSecret = () =>
  useChange((id: number) =>
    callRest<{ clientSecret: string; secretId: number }>(route('rotate-secret'), { id }),
  );

export const useRevokeSecret = () =>
  useChange((input: { id: number; secretId: number }) => callRest<unknown>(route('revoke-secret'), input));

/** Disables (`active: false`) or enables an account. */
export const useSetActive = () =>
  useChange(({ id, active }: { id: number; active: boolean }) =>
    callRest<unknown>(route(active ? 'enable' : 'disable'), { id }),
  );

/** Registers a PEM public key for private_key_jwt; an empty one removes it. */
export const useSetPublicKey = () =>
  useChange((input: { id: number; publicKey: string }) => callRest<unknown>(route('set-public-key'), input));
