import { Box, TextField, type TextFieldProps } from '@mui/material';

import { charCount } from '@/lib/limits';
import { strings } from '@/lib/strings';

type CountedTextFieldProps = Omit<TextFieldProps, 'value'> & {
  value: string;
  /** The server's limit in characters (`lib/limits.ts`). */
  limit: number;
};

/**
 * A text field that shows how much of the server's limit is used («12 / 300») and turns red
 * past it, with the limit in words, so a too-long title is stopped in the form and not by a
 * bare error toast (issue 19 point 12). The form's own validation refuses it too
 * (`lengthError`); the field's other message (e.g. «required») comes in `helperText`.
 */
export function CountedTextField({ value, limit, error, helperText, ...props }: CountedTextFieldProps) {
  const count = charCount(value);
  const over = count > limit;
  return (
    <TextField
      {...props}
      value={value}
      error={error === true || over}
      helperText={
        <Box component="span" sx={{ display: 'flex', gap: 1, justifyContent: 'space-between' }}>
          <span>{helperText ?? (over ? strings.limits.tooLong(limit) : '')}</span>
          <Box
            component="span"
            data-testid="char-counter"
            sx={{ flexShrink: 0, fontVariantNumeric: 'tabular-nums' }}
          >
            {strings.limits.counter(count, limit)}
          </Box>
        </Box>
      }
    />
  );
}
