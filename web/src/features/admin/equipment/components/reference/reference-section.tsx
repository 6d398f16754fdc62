import { Link, List, ListItem, ListItemText, Paper, Stack, Typography } from '@mui/material';

import { CreateDialog } from '@/components/create-dialog';
import { Loading, LoadError } from '@/components/load-state';
import { equipmentStrings } from '@/lib/equipment-strings';
import { errorMessage } from '@/lib/errors';

import type { FormField, FormValues } from '../../utils/fields-form';
import { FieldsForm } from '../fields-form';

const reference = equipmentStrings.reference;

export type ReferenceItem = { id: bigint; primary: string; secondary?: string; href?: string };

type ReferenceSectionProps = {
  /** Names the section's heading and its form. */
  id: string;
  title: string;
  empty: string;
  createTitle: string;
  fields: readonly FormField[];
  /** The list's state: undefined while it loads, null when it failed. */
  items: readonly ReferenceItem[] | undefined | null;
  create: (values: FormValues) => Promise<unknown>;
};

/**
 * One reference list with its create dialog (spec §4: after a success a message, the list
 * refreshes, and 3 s later the form resets and the dialog closes, as for equipment).
 */
export function ReferenceSection({
  id,
  title,
  empty,
  createTitle,
  fields,
  items,
  create,
}: ReferenceSectionProps) {
  const headingId = `${id}-heading`;

  let content;
  if (items === undefined) content = <Loading />;
  else if (items === null) content = <LoadError message={reference.loadFailed} />;
  else if (items.length === 0)
    content = <Typography sx={{ color: 'text.secondary', py: 1 }}>{empty}</Typography>;
  else {
    content = (
      <List dense disablePadding aria-labelledby={headingId}>
        {items.map((item) => (
          <ListItem key={item.id} divider disableGutters>
            <ListItemText
              primary={
                item.href === undefined ? (
                  item.primary
                ) : (
                  <Link
                    href={item.href}
                    target="_blank"
                    rel="noopener noreferrer"
                    aria-label={`${item.primary} (${equipmentStrings.documents.opensInNewTab})`}
                  >
                    {item.primary}
                  </Link>
                )
              }
              secondary={item.secondary}
            />
          </ListItem>
        ))}
      </List>
    );
  }

  return (
    <Paper variant="outlined" component="section" aria-labelledby={headingId} sx={{ p: 2.5 }}>
      <Stack
        direction="row"
        spacing={1}
        sx={{ alignItems: 'center', justifyContent: 'space-between', mb: 1 }}
      >
        <Typography id={headingId} variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
          {title}
        </Typography>
        <CreateDialog
          formId={`${id}-form`}
          text={{ create: reference.add, createTitle, created: reference.created }}
          failed={(error) => reference.createFailed + errorMessage(error)}
          closeDelayMs={3000}
          create={create}
          button={{ variant: 'text', size: 'small', 'aria-label': reference.addLabel(createTitle) }}
        >
          {(form) => <FieldsForm {...form} fields={fields} />}
        </CreateDialog>
      </Stack>
      {content}
    </Paper>
  );
}
