import { Button, Paper, Stack } from '@mui/material';
import { Fragment, type ReactNode, useState } from 'react';

import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';
import { DraftContext, useDraftTracker, useUnsavedChanges } from '@/lib/unsaved';

import { Loading, LoadError } from './load-state';
import { PageHeader } from './page-header';

/** What the page needs of its load (a connect-query `useQuery` result fits). */
type Load = { isError: boolean; isPending: boolean; dataUpdatedAt: number };

type EditPageProps<E, V> = {
  /** The route's id; a parameter that is not an id fails like a missing entity. */
  id: bigint | undefined;
  load: Load;
  /** The entity in the loaded answer; none there fails the page. */
  entity: E | undefined;
  /** What a failed load says; the generic text by default. */
  loadFailed?: string;
  title: (entity: E) => string;
  formId: string;
  /** Sends the edited values (a mutation's `mutateAsync`). */
  save: (entity: E, values: V) => Promise<unknown>;
  saved: string;
  /** The error toast of a failed save: a fixed text or the server's reason (spec §8). */
  failed: (error: unknown) => string;
  maxWidth: number;
  /** The form, given its id, whether it is locked, and what submitting it does. */
  children: (entity: E, form: { id: string; disabled: boolean; onSubmit: (values: V) => void }) => ReactNode;
  /** Sections under the form (compliance, question analysis, units). */
  below?: (entity: E) => ReactNode;
};

/**
 * An admin entity's edit page: loading, a failed or empty load, then its name over its form
 * with a save button; a save says so in a toast. Saved data comes back refetched, and the
 * form starts again from it (a new key). Leaving with unsaved edits asks first.
 */
export function EditPage<E, V>({
  id,
  load,
  entity,
  loadFailed,
  title,
  formId,
  save,
  saved,
  failed,
  maxWidth,
  children,
  below,
}: EditPageProps<E, V>) {
  const [saving, setSaving] = useState(false);
  const draft = useDraftTracker();
  // Only the blocker and `beforeunload` ask here: the page has nothing of its own to close.
  useUnsavedChanges(draft.dirty && !saving);

  if (id === undefined || load.isError) return <LoadError message={loadFailed} />;
  if (load.isPending) return <Loading />;
  if (entity === undefined) return <LoadError message={loadFailed} />;

  const submit = (values: V) => {
    setSaving(true);
    save(entity, values)
      .then(
        () => notify.success(saved),
        (error: unknown) => notify.error(failed(error)),
      )
      .finally(() => setSaving(false));
  };

  return (
    <Stack spacing={3} sx={{ maxWidth }}>
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <PageHeader title={title(entity)} />
        <Stack spacing={3}>
          <DraftContext value={draft.report}>
            <Fragment key={load.dataUpdatedAt}>
              {children(entity, { id: formId, disabled: saving, onSubmit: submit })}
            </Fragment>
          </DraftContext>
          <Stack direction="row" sx={{ justifyContent: 'flex-end' }}>
            <Button type="submit" form={formId} variant="contained" loading={saving}>
              {strings.common.save}
            </Button>
          </Stack>
        </Stack>
      </Paper>
      {below?.(entity)}
    </Stack>
  );
}
