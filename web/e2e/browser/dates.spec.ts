// Issue 19 point 15: one date style. The spec's formats (§9) where it names them — a
// course's deadline `YYYY-MM-DD`, a test's completion `DD-MM-YYYY: HH-MM` — and the Russian
// `DD.MM.YYYY` elsewhere (the equipment logbook), whichever page a person reads them on.
import { admin } from '../support/accounts';
import { signIn } from './session';
import { expect, test } from './test';

test("the admin's course list writes a deadline as the spec's YYYY-MM-DD, like the learner's pages", async ({
  page,
}) => {
  await signIn(page, admin);
  await page.goto('/admin/education/courses');
  const deadlines = page.getByText(/^Срок: /);
  await expect(deadlines.first()).toBeVisible();
  for (const deadline of await deadlines.all()) {
    await expect(deadline).toHaveText(/^Срок: \d{4}-\d{2}-\d{2}$/);
  }
});
