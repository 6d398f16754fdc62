import { Code, ConnectError, createRouterTransport } from '@connectrpc/connect';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { WikiService } from '@/gen/portal/wiki/v1/wiki_pb';
import { renderPage } from '@/testing/render-with-transport';

import { CreateModelDialog } from './create-model-dialog';

/** The wiki's create call: refuses a name already taken, records what it was sent. */
function wiki(...taken: string[]) {
  const sent: { name: string; brandName: string; description: string; shortInstruction: string }[] = [];
  const transport = createRouterTransport(({ service }) =>
    service(WikiService, {
      createEnvironmentModel: (request) => {
        const { name, brandName, description, shortInstruction } = request;
        sent.push({ name, brandName, description, shortInstruction });
        if (taken.includes(request.name)) {
          throw new ConnectError('Модель с таким названием уже есть', Code.AlreadyExists);
        }
        return { environmentModel: { id: 7n, name: request.name } };
      },
    }),
  );
  return { transport, sent };
}

const path = '/admin/equipments/equipment-models';

async function fillAndCreate(user: ReturnType<typeof userEvent.setup>, name: string) {
  await user.click(screen.getByRole('button', { name: 'Создать модель' }));
  const dialog = await screen.findByRole('dialog', { name: 'Новая модель оборудования' });
  const fields: [RegExp, string][] = [
    [/^Название/, name],
    [/^Производитель/, 'Philips'],
    [/^Описание/, 'Монитор пациента'],
  ];
  for (const [label, value] of fields) {
    await user.click(within(dialog).getByRole('textbox', { name: label }));
    await user.paste(value);
  }
  await user.click(within(dialog).getByRole('button', { name: 'Создать' }));
  return dialog;
}

describe('CreateModelDialog', () => {
  it('says so on success, stays 3 s (spec §9), then closes and opens again empty', async () => {
    const { transport, sent } = wiki();
    renderPage(<CreateModelDialog />, { transport, pattern: path, path });
    const user = userEvent.setup();

    const dialog = await fillAndCreate(user, 'IntelliVue MX450');
    // Saved: the button is locked without its spinner; the 3 s count from here (real time).
    const submit = within(dialog).getByRole('button', { name: 'Создать' });
    await waitFor(() => {
      expect(submit).toBeDisabled();
      expect(within(submit).queryByRole('progressbar')).not.toBeInTheDocument();
    });
    const saved = performance.now();
    expect(await screen.findByText('Оборудование было успешно создано!')).toBeInTheDocument();
    expect(sent).toEqual([
      {
        name: 'IntelliVue MX450',
        brandName: 'Philips',
        description: 'Монитор пациента',
        shortInstruction: '',
      },
    ]);

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument(), {
      timeout: 6000,
    });
    expect(performance.now() - saved).toBeGreaterThanOrEqual(3000);

    await user.click(screen.getByRole('button', { name: 'Создать модель' }));
    const again = await screen.findByRole('dialog', { name: 'Новая модель оборудования' });
    expect(within(again).getByRole('textbox', { name: /^Название/ })).toHaveValue('');
    expect(within(again).getByRole('button', { name: 'Создать' })).toBeEnabled();
  });

  it("shows spec §8's failure with the server's reason and keeps what was typed", async () => {
    const { transport } = wiki('Дубль');
    renderPage(<CreateModelDialog />, { transport, pattern: path, path });
    const user = userEvent.setup();

    const dialog = await fillAndCreate(user, 'Дубль');
    expect(
      await screen.findByText('Не удалось создать оборудование: Модель с таким названием уже есть'),
    ).toBeInTheDocument();
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(dialog).toBeVisible();
    expect(within(dialog).getByRole('textbox', { name: /^Название/ })).toHaveValue('Дубль');
    expect(within(dialog).getByRole('button', { name: 'Создать' })).toBeEnabled();
  });
});
