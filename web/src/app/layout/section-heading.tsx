import { Typography } from '@mui/material';
import { useLocation } from 'react-router';

import { sectionTitle } from './section-title';

export function SectionHeading() {
  const { pathname } = useLocation();
  return (
    <Typography variant="h5" component="h1" sx={{ fontWeight: 600, mb: 2 }}>
      {sectionTitle(pathname)}
    </Typography>
  );
}
