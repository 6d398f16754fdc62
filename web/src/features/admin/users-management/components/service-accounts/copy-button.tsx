import CheckOutlined from '@mui/icons-material/CheckOutlined';
import ContentCopyOutlined from '@mui/icons-material/ContentCopyOutlined';
import { IconButton, Tooltip } from '@mui/material';
import { useEffect, useState } from 'react';

import { adminStrings } from '@/lib/admin-strings';
import { notify } from '@/lib/notifications';

const text = adminStrings.serviceAccounts;

type CopyButtonProps = {
  /** What is copied. */
  value: string;
  /** What it is, for the button's name: «Скопировать: ID клиента». */
  what: string;
  /**
   * Where the value is shown: selected when the clipboard cannot be written (a page served
   * over plain http on a hospital address is no secure context), so Ctrl+C copies it.
   */
  select?: () => void;
};

/** Copies a value to the clipboard; says so in a toast and by a check mark for 2 s. */
export function CopyButton({ value, what, select }: CopyButtonProps) {
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = setTimeout(() => setCopied(false), 2000);
    return () => clearTimeout(timer);
  }, [copied]);

  const copy = async () => {
    try {
      // Absent outside a secure context, whatever the types say.
      if (!('clipboard' in navigator)) throw new Error('no clipboard');
      await navigator.clipboard.writeText(value);
      setCopied(true);
      notify.success(text.copied);
    } catch {
      select?.();
      notify.error(text.copyFailed);
    }
  };

  const label = text.copy(what);
  return (
    <Tooltip title={label}>
      <IconButton
        aria-label={label}
        onClick={() => void copy()}
        size="small"
        color={copied ? 'success' : 'default'}
      >
        {copied ? <CheckOutlined fontSize="small" /> : <ContentCopyOutlined fontSize="small" />}
      </IconButton>
    </Tooltip>
  );
}
