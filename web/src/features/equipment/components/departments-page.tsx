import ApartmentOutlined from '@mui/icons-material/ApartmentOutlined';
import EventBusyOutlined from '@mui/icons-material/EventBusyOutlined';
import { Avatar, Box, Button, Card, CardActionArea, Grid, Typography } from '@mui/material';
import { Link } from 'react-router';

import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { equipmentStrings } from '@/lib/equipment-strings';
import { Right, useHasRight } from '@/lib/session/rights';
import { useSession } from '@/lib/session/session';
import { strings } from '@/lib/strings';

import { useDepartmentsByIds } from '../api/equipment-queries';

const collator = new Intl.Collator('ru-RU');

/** Spec §2: the user's own departments (from the session) as cards, each opening its equipment. */
export function DepartmentsPage() {
  const departmentIds = (useSession()?.user.departments ?? []).map(BigInt);
  const query = useDepartmentsByIds(departmentIds);
  const editor = useHasRight(Right.EquipmentEditing) === true;

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.departments.length === 0) {
    content = <Typography sx={{ color: 'text.secondary' }}>{equipmentStrings.departmentsEmpty}</Typography>;
  } else {
    const departments = [...query.data.departments].sort((a, b) => collator.compare(a.title, b.title));
    content = (
      <Grid container spacing={{ xs: 1.5, sm: 2 }}>
        {departments.map((department) => (
          <Grid key={department.id} size={{ xs: 12, sm: 6, lg: 4 }}>
            <Card variant="outlined" sx={{ height: '100%' }}>
              <CardActionArea
                component={Link}
                to={`${paths.departments}/environments/${department.id}`}
                sx={{ height: '100%', p: 2, display: 'flex', justifyContent: 'flex-start', gap: 2 }}
              >
                <Avatar sx={{ bgcolor: 'primary.main', width: 48, height: 48 }}>
                  <ApartmentOutlined />
                </Avatar>
                <Box sx={{ minWidth: 0 }}>
                  <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, lineHeight: 1.3 }}>
                    {department.title}
                  </Typography>
                  <Typography variant="body2" sx={{ color: 'text.secondary' }}>
                    {equipmentStrings.openDepartment}
                  </Typography>
                </Box>
              </CardActionArea>
            </Card>
          </Grid>
        ))}
      </Grid>
    );
  }

  return (
    <>
      <PageHeader
        title={strings.pages.departments}
        action={
          editor && (
            <Button component={Link} to={paths.maintenanceDue} startIcon={<EventBusyOutlined />}>
              {strings.pages.maintenanceDue}
            </Button>
          )
        }
      />
      <Typography sx={{ color: 'text.secondary', mb: 2 }}>{equipmentStrings.departmentsHint}</Typography>
      {content}
    </>
  );
}
