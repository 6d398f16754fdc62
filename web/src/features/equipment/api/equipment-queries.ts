import {
  callUnaryMethod,
  createConnectQueryKey,
  useMutation,
  useQuery,
  useTransport,
} from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { FilesService, type GetFilesResponse } from '@/gen/portal/files/v1/files_pb';
import { WikiService } from '@/gen/portal/wiki/v1/wiki_pb';
import { refusalShownByPage } from '@/lib/errors';
import { skipUntilKnown } from '@/lib/skip-until-known';
import { htmlToText } from '@/lib/text-diff';

import { linkRenewalMs } from '../utils/download-links';

const wiki = WikiService.method;
const files = FilesService.method;
const auth = AuthService.method;

/** The departments with the given ids: the cards of the user's own departments. */
export const useDepartmentsByIds = (departmentIds: bigint[]) =>
  useQuery(auth.listDepartmentsByIds, { departmentIds });

/** Every department the caller may see: all of them for an admin-type right. */
export const useDepartments = () => useQuery(auth.listDepartments);

export const useDepartment = (departmentId: bigint | undefined) =>
  useQuery(
    auth.getDepartment,
    skipUntilKnown(departmentId, (id) => ({ departmentId: id })),
    { meta: refusalShownByPage },
  );

export const useModelsByDepartment = (departmentId: bigint | undefined) =>
  useQuery(
    wiki.listEnvironmentModelsByDepartment,
    skipUntilKnown(departmentId, (id) => ({ departmentId: id })),
  );

export const useModel = (modelId: bigint | undefined) =>
  useQuery(
    wiki.getEnvironmentModel,
    skipUntilKnown(modelId, (id) => ({ environmentModelId: id })),
    { meta: refusalShownByPage },
  );

export const useMaintenanceEntries = (environmentId: bigint | undefined) =>
  useQuery(
    wiki.listMaintenanceEntries,
    skipUntilKnown(environmentId, (id) => ({ environmentId: id })),
  );

export const useMaintenanceDue = () => useQuery(wiki.listMaintenanceDue);

export const useJournals = (modelId: bigint | undefined) =>
  useQuery(
    wiki.listJournals,
    skipUntilKnown(modelId, (id) => ({ environmentModelId: id })),
  );

export const useJournalEntries = (journalId: bigint | undefined) =>
  useQuery(
    wiki.listJournalEntries,
    skipUntilKnown(journalId, (id) => ({ journalId: id })),
  );

export const useLabelSheet = (departmentId: bigint | undefined) =>
  useQuery(
    wiki.getLabelSheet,
    skipUntilKnown(departmentId, (id) => ({ departmentId: id })),
  );

/**
 * A model's documents. Their URLs carry download links that end (PORTAL_FILES_LINK_LIFETIME),
 * so the list is asked for again well before: on an interval, and when the window comes back
 * after the list has gone stale (timers sleep in a hidden tab).
 */
export const useDocuments = (modelId: bigint | undefined) =>
  useQuery(
    files.getFiles,
    skipUntilKnown(modelId, (id) => ({ idRelated: id })),
    {
      staleTime: ({ state }) => renewal(state.data, state.dataUpdatedAt),
      refetchInterval: ({ state }) => renewal(state.data, state.dataUpdatedAt),
      refetchOnWindowFocus: true,
    },
  );

const renewal = (data: GetFilesResponse | undefined, listedAt: number) =>
  linkRenewalMs(data?.files ?? [], listedAt);

/** A change shows in every list of the service that made it (models, units, logbooks…). */
function useRefresh(schema: typeof WikiService | typeof FilesService | typeof EducationService) {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({ queryKey: createConnectQueryKey({ schema, cardinality: undefined }) });
}

export const useCreateUnit = () =>
  useMutation(wiki.createEnvironment, { onSuccess: useRefresh(WikiService) });

export const useCreateMaintenanceEntry = () =>
  useMutation(wiki.createMaintenanceEntry, { onSuccess: useRefresh(WikiService) });

export const useCreateJournal = () => useMutation(wiki.createJournal, { onSuccess: useRefresh(WikiService) });

export const useCreateJournalEntry = () =>
  useMutation(wiki.createJournalEntry, { onSuccess: useRefresh(WikiService) });

export const useSaveInstruction = () => useMutation(wiki.saveInstruction);

/** The instruction's revisions (issue 25), for its editors. */
export const useInstructionRevisions = (environmentModelId: bigint) =>
  useQuery(wiki.listInstructionRevisions, { environmentModelId });

export const useRestoreInstructionRevision = () =>
  useMutation(wiki.restoreInstructionRevision, { onSuccess: useRefresh(WikiService) });

/** An instruction's revision as text, without markup. */
export function useInstructionRevisionText(environmentModelId: bigint) {
  const transport = useTransport();
  return async (revisionId: bigint) => {
    const revision = await callUnaryMethod(transport, wiki.getInstructionRevision, {
      environmentModelId,
      revisionId,
    });
    return htmlToText(revision.shortInstruction);
  };
}

export const useDeleteDocument = () => useMutation(files.deleteFile, { onSuccess: useRefresh(FilesService) });

/** Whether the reader is cleared to operate a model (the courses it requires, passed). */
export const useClearance = (modelId: bigint | undefined) =>
  useQuery(
    wiki.getClearance,
    skipUntilKnown(modelId, (id) => ({ environmentModelId: id })),
  );

/**
 * Makes a course that clears the reader to operate equipment theirs (issue 37: nobody may have
 * assigned it); their courses, tests and bell change with it.
 */
export const useEnrollForClearance = () =>
  useMutation(EducationService.method.enrollForClearance, { onSuccess: useRefresh(EducationService) });

/** Who in a department is cleared to operate a model; for editors and education managers. */
export const useDepartmentClearance = (modelId: bigint, departmentId: bigint | undefined) =>
  useQuery(
    wiki.getDepartmentClearance,
    skipUntilKnown(departmentId, (id) => ({ environmentModelId: modelId, departmentId: id })),
  );
