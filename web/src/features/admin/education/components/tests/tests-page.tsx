import { ListItemText, Typography } from '@mui/material';

import { LetterGroups } from '@/components/letter-groups';
import { LinkListItem } from '@/components/link-list';
import { Loading, LoadError } from '@/components/load-state';
import { PageHeader } from '@/components/page-header';
import { paths } from '@/config/paths';
import { adminStrings } from '@/lib/admin-strings';
import { groupByFirstLetter } from '@/lib/group-by-letter';
import { strings } from '@/lib/strings';

import { useTests } from '../../api/education-queries';
import { CreateTestDialog } from './create-test-dialog';

const text = adminStrings.education.test;

export function TestsPage() {
  const query = useTests();

  let content;
  if (query.isPending) content = <Loading />;
  else if (query.isError) content = <LoadError />;
  else if (query.data.tests.length === 0)
    content = <Typography sx={{ color: 'text.secondary' }}>{text.empty}</Typography>;
  else {
    content = (
      <LetterGroups
        groups={groupByFirstLetter(query.data.tests, (test) => test.title)}
        renderItem={(test) => (
          <LinkListItem key={test.id} to={`${paths.adminTests}/${test.id}`}>
            <ListItemText
              primary={test.title}
              secondary={text.settingsSummary(
                test.totalPointsRequired,
                test.numberOfQuestions,
                test.numberOfTries,
              )}
            />
          </LinkListItem>
        )}
      />
    );
  }

  return (
    <>
      <PageHeader title={strings.pages.adminTests} action={<CreateTestDialog />} />
      {content}
    </>
  );
}
