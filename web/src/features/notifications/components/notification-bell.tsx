import NotificationsOutlined from '@mui/icons-material/NotificationsOutlined';
import {
  Badge,
  Box,
  Button,
  IconButton,
  List,
  ListItemButton,
  ListItemText,
  Popover,
  Typography,
} from '@mui/material';
import { useState } from 'react';
import { Link } from 'react-router';

import { formatDate } from '@/lib/dates';
import { strings } from '@/lib/strings';

import { type Notification, useMarkRead, useMyNotifications } from '../api/notification-queries';

const text = strings.notifications;

function dueLine(item: Notification): string {
  return item.overdue ? text.overdueSince(formatDate(item.dueDate)) : text.dueBy(formatDate(item.dueDate));
}

/** The count as the badge shows it: past 99 only that there are more. */
const shownCount = (unread: number) => (unread > 99 ? '99+' : String(unread));

/** The header's bell: how many items are unread, and the list of them all behind it. */
export function NotificationBell() {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const mine = useMyNotifications();
  const markRead = useMarkRead();
  const items = mine.data?.notifications ?? [];
  const unread = mine.data?.unread ?? 0;
  const close = () => setAnchor(null);
  const open = (item: Notification) => {
    if (!item.read) markRead.mutate([item.id]);
    close();
  };
  const unreadIds = items.filter((item) => !item.read).map((item) => item.id);

  return (
    <>
      <IconButton
        aria-label={text.bellLabel(unread > 0 ? shownCount(unread) : '')}
        aria-haspopup="dialog"
        onClick={(event) => setAnchor(event.currentTarget)}
        color="inherit"
      >
        {/* The badge's text is part of the button's name, so it says what the label says. */}
        <Badge badgeContent={unread > 0 ? shownCount(unread) : undefined} color="error">
          <NotificationsOutlined />
        </Badge>
      </IconButton>
      <Popover
        open={anchor !== null}
        anchorEl={anchor}
        onClose={close}
        anchorOrigin={{ vertical: 'bottom', horizontal: 'right' }}
        transformOrigin={{ vertical: 'top', horizontal: 'right' }}
        slotProps={{
          paper: { role: 'dialog', 'aria-label': text.title, sx: { width: 380, maxWidth: '95vw' } },
        }}
      >
        <Box sx={{ display: 'flex', alignItems: 'center', px: 2, pt: 1.5, pb: 1 }}>
          <Typography variant="subtitle1" component="h2" sx={{ fontWeight: 600, flexGrow: 1 }}>
            {text.title}
          </Typography>
          {unreadIds.length > 0 && (
            <Button size="small" onClick={() => markRead.mutate(unreadIds)} disabled={markRead.isPending}>
              {text.markAllRead}
            </Button>
          )}
        </Box>
        {mine.isError && (
          <Typography sx={{ px: 2, pb: 2, color: 'error.main' }}>{text.loadFailed}</Typography>
        )}
        {mine.data && items.length === 0 && (
          <Typography sx={{ px: 2, pb: 2, color: 'text.secondary' }}>{text.empty}</Typography>
        )}
        {mine.data && !mine.data.complete && (
          <Typography variant="body2" sx={{ px: 2, pb: 1, color: 'text.secondary' }}>
            {text.incomplete}
          </Typography>
        )}
        {items.length > 0 && (
          <List dense disablePadding sx={{ maxHeight: 420, overflowY: 'auto' }}>
            {items.map((item) => (
              <li key={item.id}>
                <ListItemButton component={Link} to={item.link} onClick={() => open(item)}>
                  <ListItemText
                    primary={item.read ? item.title : <strong>{item.title}</strong>}
                    secondary={`${text.kinds[item.kind] ?? ''}${dueLine(item)}${item.read ? '' : ` · ${text.unread}`}`}
                    slotProps={{
                      secondary: { sx: { color: item.overdue ? 'error.dark' : 'text.secondary' } },
                    }}
                  />
                </ListItemButton>
              </li>
            ))}
          </List>
        )}
      </Popover>
    </>
  );
}
