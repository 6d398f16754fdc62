import AdminPanelSettingsOutlined from '@mui/icons-material/AdminPanelSettingsOutlined';
import AssignmentOutlined from '@mui/icons-material/AssignmentOutlined';
import ContactPhoneOutlined from '@mui/icons-material/ContactPhoneOutlined';
import MedicalServicesOutlined from '@mui/icons-material/MedicalServicesOutlined';
import MedicationOutlined from '@mui/icons-material/MedicationOutlined';
import MenuBookOutlined from '@mui/icons-material/MenuBookOutlined';
import OpenInNew from '@mui/icons-material/OpenInNew';
import SchoolOutlined from '@mui/icons-material/SchoolOutlined';
import { Avatar, Box, Card, CardActionArea, Grid, Typography } from '@mui/material';
import type { ReactNode } from 'react';
import { Link } from 'react-router';

import { externalLinks } from '@/config/links';
import { paths } from '@/config/paths';
import { useIsAdmin } from '@/lib/session/rights';
import { strings } from '@/lib/strings';

type Tile = { title: string; text: string; icon: ReactNode; color: string } & (
  { to: string } | { href: string }
);

const { tiles } = strings.home;

function tilesFor(admin: boolean): Tile[] {
  return [
    { ...tiles.education, icon: <SchoolOutlined />, color: '#0b5f8a', to: paths.courses },
    {
      ...tiles.phoneDirectory,
      icon: <ContactPhoneOutlined />,
      color: '#12897f',
      href: externalLinks.phoneDirectory,
    },
    {
      ...tiles.medicines,
      icon: <MedicationOutlined />,
      color: '#b5485d',
      href: externalLinks.medicinesRegister,
    },
    {
      ...tiles.clinicalGuidelines,
      icon: <MenuBookOutlined />,
      color: '#6a4fa3',
      href: externalLinks.clinicalGuidelines,
    },
    { ...tiles.taskSite, icon: <AssignmentOutlined />, color: '#b86e12', href: externalLinks.taskSite },
    { ...tiles.equipment, icon: <MedicalServicesOutlined />, color: '#2f7d32', to: paths.departments },
    ...(admin
      ? [{ ...tiles.admin, icon: <AdminPanelSettingsOutlined />, color: '#37474f', to: paths.admin }]
      : []),
  ];
}

// Internal tiles are router links; external ones open a new tab (spec §1).
const linkProps = (tile: Tile) =>
  'to' in tile
    ? ({ component: Link, to: tile.to } as const)
    : ({ component: 'a', href: tile.href, target: '_blank', rel: 'noopener noreferrer' } as const);

export function HomeTiles() {
  const admin = useIsAdmin();
  return (
    <Grid component="nav" aria-label={strings.home.tilesLabel} container spacing={{ xs: 1.5, sm: 2 }}>
      {tilesFor(admin).map((tile) => (
        <Grid key={tile.title} size={{ xs: 12, sm: 6, lg: 4 }}>
          <Card variant="outlined" sx={{ height: '100%' }}>
            <CardActionArea
              {...linkProps(tile)}
              sx={{
                height: '100%',
                p: { xs: 1.5, sm: 2 },
                display: 'flex',
                justifyContent: 'flex-start',
                alignItems: 'center',
                gap: 2,
              }}
            >
              <Avatar sx={{ bgcolor: tile.color, width: 48, height: 48 }}>{tile.icon}</Avatar>
              <Box sx={{ minWidth: 0 }}>
                <Typography
                  variant="subtitle1"
                  component="span"
                  sx={{ display: 'block', fontWeight: 600, lineHeight: 1.3 }}
                >
                  {tile.title}
                  {'href' in tile && (
                    <OpenInNew
                      titleAccess={strings.nav.opensInNewTab}
                      sx={{ fontSize: 16, ml: 0.75, verticalAlign: 'text-top', color: 'text.secondary' }}
                    />
                  )}
                </Typography>
                <Typography
                  variant="body2"
                  component="span"
                  sx={{ display: 'block', color: 'text.secondary', lineHeight: 1.4, mt: 0.5 }}
                >
                  {tile.text}
                </Typography>
              </Box>
            </CardActionArea>
          </Card>
        </Grid>
      ))}
    </Grid>
  );
}
