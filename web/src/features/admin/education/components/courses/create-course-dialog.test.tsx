import { createRouterTransport } from '@connectrpc/connect';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { EducationService } from '@/gen/portal/education/v1/education_pb';
import { renderPage } from '@/testing/render-with-transport';

import { CreateCourseDialog } from './create-course-dialog';

/** The education service's create call, recording the validity each course was sent with. */
function education() {
  const sent: number[] = [];
  const transport = createRouterTransport(({ service }) =>
    service(EducationService, {
      createCourse: (request) => {
        sent.push(request.validityMonths);
        return { course: { id: 3n, title: request.title, validityMonths: request.validityMonths } };
      },
    }),
  );
  return { transport, sent };
}

const path = '/admin/education/courses';

async function openAndFill(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('button', { name: 'Создать курс' }));
  const dialog = await screen.findByRole('dialog', { name: 'Новый курс' });
  await user.click(within(dialog).getByRole('textbox', { name: /^Название/ }));
  await user.paste('Базовая СЛР');
  await user.click(within(dialog).getByRole('textbox', { name: /^Описание/ }));
  await user.paste('Ежегодная переаттестация');
  fireEvent.change(within(dialog).getByLabelText(/^Срок прохождения/), { target: { value: '2030-01-31' } });
  return dialog;
}

describe('CreateCourseDialog', () => {
  it('takes a validity in months, digits only and at most 120, and sends it', async () => {
    const { transport, sent } = education();
    renderPage(<CreateCourseDialog />, { transport, pattern: path, path });
    const user = userEvent.setup();
    const dialog = await openAndFill(user);
    const validity = within(dialog).getByRole('textbox', { name: 'Срок действия (месяцев)' });
    expect(within(dialog).getByText(/пусто или 0 — бессрочно/)).toBeInTheDocument();

    await user.type(validity, '1а21');
    expect(validity).toHaveValue('121');
    await user.click(within(dialog).getByRole('button', { name: 'Создать' }));
    expect(
      await within(dialog).findByText('Срок действия не может превышать 120 месяцев'),
    ).toBeInTheDocument();
    expect(sent).toEqual([]);

    await user.clear(validity);
    await user.type(validity, '12');
    await user.click(within(dialog).getByRole('button', { name: 'Создать' }));
    await waitFor(() => expect(sent).toEqual([12]));
  });

  it('sends an empty validity as 0: the course never expires', async () => {
    const { transport, sent } = education();
    renderPage(<CreateCourseDialog />, { transport, pattern: path, path });
    const user = userEvent.setup();
    const dialog = await openAndFill(user);
    await user.click(within(dialog).getByRole('button', { name: 'Создать' }));
    await waitFor(() => expect(sent).toEqual([0]));
  });
});
