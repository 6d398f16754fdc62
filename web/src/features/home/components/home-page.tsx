import { Stack } from '@mui/material';

import { HomeTiles } from './home-tiles';
import { NewsFeed } from './news-feed';
import { PersonalNav, PersonalNavSpace } from './personal-nav';

export function HomePage() {
  return (
    <Stack spacing={4}>
      <HomeTiles />
      <NewsFeed />
      <PersonalNav />
      <PersonalNavSpace />
    </Stack>
  );
}
