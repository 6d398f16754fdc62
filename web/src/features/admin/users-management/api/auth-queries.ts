import { createConnectQueryKey, useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { skipUntilKnown } from '@/lib/skip-until-known';

const auth = AuthService.method;

// A user's and a department's changes show in each other's lists (membership), so a
// change refreshes every query of the auth service.
function useRefreshAuth() {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: AuthService, cardinality: undefined }),
    });
}

export const useDepartmentsWithUsers = () => useQuery(auth.listDepartmentsWithUsers);

export const useDepartmentWithUsers = (departmentId: bigint | undefined) =>
  useQuery(
    auth.getDepartmentWithUsers,
    skipUntilKnown(departmentId, (id) => ({ departmentId: id })),
  );

export const useUsers = () => useQuery(auth.listUsers);

/** Ids of the statuses whose users cannot sign in (dismissed): lists mark those users. */
export function useBlockingStatusIds(): ReadonlySet<bigint> {
  const statuses = useQuery(auth.listStatuses).data?.statuses ?? [];
  return new Set(statuses.filter((status) => status.blocksSignIn).map((status) => status.id));
}

export const useUser = (userId: bigint | undefined) =>
  useQuery(
    auth.getUser,
    skipUntilKnown(userId, (id) => ({ userId: id })),
  );

export const useRights = () => useQuery(auth.listRights);

/** One right, found in the list of rights (there is no call for a single one). */
export function useRight(rightId: bigint | undefined) {
  const query = useRights();
  return {
    right: query.data?.rights.find((right) => right.id === rightId),
    isPending: query.isPending,
  };
}

/** Everything the user form chooses from; pending or failed as a whole (spec §8). */
export function useUserFormChoices() {
  const queries = [
    useQuery(auth.listStatuses),
    useQuery(auth.listPositions),
    useQuery(auth.listDepartments),
    useQuery(auth.listRights),
  ] as const;
  const [statuses, positions, departments, rights] = queries;
  return {
    isPending: queries.some((query) => query.isPending),
    isError: queries.some((query) => query.isError),
    statuses: statuses.data?.statuses ?? [],
    positions: positions.data?.positions ?? [],
    departments: departments.data?.departments ?? [],
    rights: rights.data?.rights ?? [],
  };
}

export const useCreateDepartment = () => useMutation(auth.createDepartment, { onSuccess: useRefreshAuth() });

export const useUpdateDepartment = () => useMutation(auth.updateDepartment, { onSuccess: useRefreshAuth() });

export const useCreateUser = () => useMutation(auth.createUser, { onSuccess: useRefreshAuth() });

export const useUpdateUser = () => useMutation(auth.updateUser, { onSuccess: useRefreshAuth() });

/** Ends every session of a person (issue 39.5): their lists of sessions change with it. */
export const useEndUserSessions = () => useMutation(auth.endUserSessions, { onSuccess: useRefreshAuth() });

/** Takes away a person's second factor (issue 39.4: a lost phone). */
export const useResetUserMfa = () => useMutation(auth.resetUserMfa, { onSuccess: useRefreshAuth() });
// A first sign-in without an administrator typing a password (issue 39.3). Sending an
// invitation or making a code changes no list; the audit shows them.
export const useSendInvitation = () => useMutation(auth.sendInvitation);

export const useInviteDepartment = () => useMutation(auth.inviteDepartment);

export const useMakeFirstSignInCode = () => useMutation(auth.makeFirstSignInCode);
