import { Box, Container } from '@mui/material';
import type { ReactNode } from 'react';

import { strings } from '@/lib/strings';

import { OrganisationLogo, PortalLogo } from './logos';

/** A page outside the portal's layout: sign-in, errors, the public instruction behind a QR code. */
export function StandalonePage({ children }: { children: ReactNode }) {
  return (
    <Box sx={{ minHeight: '100vh', bgcolor: 'background.default', py: { xs: 4, sm: 8 } }}>
      <Container maxWidth="sm">
        <Box sx={{ display: 'flex', justifyContent: 'center', gap: 2, mb: 4 }}>
          <PortalLogo titleAccess={strings.app.logoAlt} sx={{ fontSize: 48 }} />
          <OrganisationLogo titleAccess={strings.app.organisationLogoAlt} sx={{ fontSize: 48 }} />
        </Box>
        {children}
      </Container>
    </Box>
  );
}
