import { createConnectQueryKey, useMutation, useQuery } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { WikiService } from '@/gen/portal/wiki/v1/wiki_pb';
import { skipUntilKnown } from '@/lib/skip-until-known';

const wiki = WikiService.method;

// A model's or unit's change shows in every equipment list, so a change refreshes every
// query of the wiki service.
function useRefreshWiki() {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: WikiService, cardinality: undefined }),
    });
}

export const useModels = () => useQuery(wiki.listEnvironmentModels);

export const useModel = (modelId: bigint | undefined) =>
  useQuery(
    wiki.getEnvironmentModel,
    skipUntilKnown(modelId, (id) => ({ environmentModelId: id })),
  );

/** Every department (an admin-type right sees them all): where a unit can be deployed. */
export const useDepartments = () => useQuery(AuthService.method.listDepartments);

export const useCreateModel = () => useMutation(wiki.createEnvironmentModel, { onSuccess: useRefreshWiki() });

export const useUpdateModel = () => useMutation(wiki.updateEnvironmentModel, { onSuccess: useRefreshWiki() });

export const useCreateUnit = () => useMutation(wiki.createEnvironment, { onSuccess: useRefreshWiki() });

export const useUpdateUnit = () => useMutation(wiki.updateEnvironment, { onSuccess: useRefreshWiki() });

export const useRetireUnit = () => useMutation(wiki.retireEnvironment, { onSuccess: useRefreshWiki() });

export const useCountries = () => useQuery(wiki.listCountries);

export const useManufacturers = () => useQuery(wiki.listManufacturers);

export const useEnvironmentTypes = () => useQuery(wiki.listEnvironmentTypes);

export const useCommonDocuments = () => useQuery(wiki.listCommonDocuments);

export const useCreateCountry = () => useMutation(wiki.createCountry, { onSuccess: useRefreshWiki() });

export const useCreateManufacturer = () =>
  useMutation(wiki.createManufacturer, { onSuccess: useRefreshWiki() });

export const useCreateEnvironmentType = () =>
  useMutation(wiki.createEnvironmentType, { onSuccess: useRefreshWiki() });

export const useCreateCommonDocument = () =>
  useMutation(wiki.createCommonDocument, { onSuccess: useRefreshWiki() });

/** Every course (an education manager's list; anyone else's own courses). */
export const useCourses = () => useQuery(EducationService.method.listCourses);

export const useSetRequiredCourses = () =>
  useMutation(wiki.setRequiredCourses, { onSuccess: useRefreshWiki() });

/** A department's members, read when a course is assigned to them. */
export const useDepartmentMembers = () => useMutation(AuthService.method.getDepartmentWithUsers);

export const useAssignCourse = () => useMutation(EducationService.method.assignCourse);
