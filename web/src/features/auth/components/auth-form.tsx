import {
  FormControl,
  InputLabel,
  OutlinedInput,
  Paper,
  Stack,
  Typography,
  type OutlinedInputProps,
} from '@mui/material';
import { useId, type ReactNode, type SubmitEvent } from 'react';

import { StandalonePage } from '@/components/standalone-page';

/**
 * An outlined text field with its label always above the text. Built from its parts
 * rather than `TextField`, which brings its select mode (menus, popovers, modals) along:
 * the sign-in page is the first load of most visits and carries only what it shows.
 */
export function Field({ label, ...input }: OutlinedInputProps & { label: string }) {
  const id = useId();
  return (
    <FormControl fullWidth>
      <InputLabel htmlFor={id} shrink>
        {label}
      </InputLabel>
      <OutlinedInput id={id} label={label} notched required {...input} />
    </FormControl>
  );
}

/** The card of the signed-out pages (sign-in, «Забыли пароль?», a new password): a heading, a line, a form. */
export function AuthForm({
  heading,
  intro,
  onSubmit,
  children,
}: {
  heading: string;
  intro: string;
  onSubmit: (event: SubmitEvent<HTMLFormElement>) => Promise<void>;
  children: ReactNode;
}) {
  return (
    <StandalonePage>
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 } }}>
        <Stack component="form" spacing={3} onSubmit={(event) => void onSubmit(event)}>
          <div>
            <Typography variant="h5" component="h1" sx={{ fontWeight: 600 }} gutterBottom>
              {heading}
            </Typography>
            <Typography sx={{ color: 'text.secondary' }}>{intro}</Typography>
          </div>
          {children}
        </Stack>
      </Paper>
    </StandalonePage>
  );
}
