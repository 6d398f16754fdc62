import { Button, Card, CardActions, CardContent, Grid, Typography } from '@mui/material';

import { strings } from '@/lib/strings';

/** Spec §1: five fixed previews; their 'Подробнее' buttons lead nowhere yet. */
export function NewsFeed() {
  return (
    <section aria-labelledby="news-title">
      <Typography id="news-title" variant="h6" component="h2" sx={{ fontWeight: 600, mb: 2 }}>
        {strings.home.newsTitle}
      </Typography>
      <Grid container spacing={2}>
        {strings.home.news.map((item) => (
          <Grid key={item.title} size={{ xs: 12, md: 6 }}>
            <Card
              component="article"
              variant="outlined"
              sx={{ height: '100%', display: 'flex', flexDirection: 'column' }}
            >
              <CardContent sx={{ flexGrow: 1 }}>
                <Typography variant="caption" component="p" sx={{ color: 'text.secondary', mb: 0.5 }}>
                  {item.date}
                </Typography>
                <Typography
                  variant="subtitle1"
                  component="h3"
                  sx={{ fontWeight: 600, lineHeight: 1.35, mb: 1 }}
                >
                  {item.title}
                </Typography>
                <Typography variant="body2" sx={{ color: 'text.secondary' }}>
                  {item.text}
                </Typography>
              </CardContent>
              <CardActions sx={{ px: 2, pb: 2 }}>
                <Button size="small" variant="outlined">
                  {strings.home.more}
                </Button>
              </CardActions>
            </Card>
          </Grid>
        ))}
      </Grid>
    </section>
  );
}
