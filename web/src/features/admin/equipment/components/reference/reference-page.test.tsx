import { Code, ConnectError, createRouterTransport } from '@connectrpc/connect';
import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';

import { WikiService } from '@/gen/portal/wiki/v1/wiki_pb';
import { renderPage } from '@/testing/render-with-transport';

import { ReferencePage } from './reference-page';

/** The wiki's reference calls over an in-memory list of countries; the rest stay empty. */
function wikiWithCountries(...names: string[]) {
  const countries = names.map((name, index) => ({ id: BigInt(index + 1), name }));
  const sent: string[] = [];
  const transport = createRouterTransport(({ service }) =>
    service(WikiService, {
      listCountries: () => ({ countries }),
      createCountry: ({ name }) => {
        sent.push(name);
        if (countries.some((country) => country.name === name)) {
          throw new ConnectError(`«${name}» уже есть в справочнике`, Code.FailedPrecondition);
        }
        const country = { id: BigInt(countries.length + 1), name };
        countries.push(country);
        return { country };
      },
      listManufacturers: () => ({ manufacturers: [] }),
      listEnvironmentTypes: () => ({ environmentTypes: [] }),
      listCommonDocuments: () => ({
        commonDocuments: [
          { id: 1n, title: 'Приказ №1', description: '', url: 'https://portal.example/1.pdf' },
        ],
      }),
    }),
  );
  return { transport, sent };
}

const path = '/admin/equipments/reference-data';

describe('ReferencePage', () => {
  it('shows each list or its empty text, documents as links opening in a new tab', async () => {
    renderPage(<ReferencePage />, { ...wikiWithCountries(), pattern: path, path });

    expect(await screen.findByText('Стран пока нет.')).toBeInTheDocument();
    expect(await screen.findByText('Производителей пока нет.')).toBeInTheDocument();
    expect(await screen.findByText('Типов оборудования пока нет.')).toBeInTheDocument();
    const link = await screen.findByRole('link', { name: 'Приказ №1 (откроется в новой вкладке)' });
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('href', 'https://portal.example/1.pdf');
  });

  it('asks for a blank required field, sends nothing, then adds the trimmed entry to the list', async () => {
    const { transport, sent } = wikiWithCountries();
    renderPage(<ReferencePage />, { transport, pattern: path, path });
    const user = userEvent.setup();

    await user.click(await screen.findByRole('button', { name: 'Добавить: Новая страна' }));
    const dialog = await screen.findByRole('dialog', { name: 'Новая страна' });
    await user.click(within(dialog).getByRole('button', { name: 'Создать' }));
    expect(within(dialog).getByText('Введите название страны')).toBeInTheDocument();
    expect(sent).toEqual([]);

    await user.type(within(dialog).getByRole('textbox', { name: /Название страны/ }), '  Германия ');
    expect(within(dialog).queryByText('Введите название страны')).not.toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Создать' }));
    expect(await screen.findByText('Запись добавлена в справочник')).toBeInTheDocument();
    expect(sent).toEqual(['Германия']);
    // The dialog stays open 3 s after a success (spec §9), the page behind it hidden meanwhile.
    const list = await screen.findByRole('list', { name: 'Страны', hidden: true });
    expect(await within(list).findByText('Германия')).toBeInTheDocument();
  });

  it("shows the server's Russian reason when an entry is refused and keeps the form", async () => {
    const { transport } = wikiWithCountries('Китай');
    renderPage(<ReferencePage />, { transport, pattern: path, path });
    const user = userEvent.setup();

    await user.click(await screen.findByRole('button', { name: 'Добавить: Новая страна' }));
    const dialog = await screen.findByRole('dialog', { name: 'Новая страна' });
    await user.type(within(dialog).getByRole('textbox', { name: /Название страны/ }), 'Китай');
    await user.click(within(dialog).getByRole('button', { name: 'Создать' }));
    expect(
      await screen.findByText('Не удалось добавить запись: «Китай» уже есть в справочнике'),
    ).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Создать' })).toBeEnabled();
    expect(within(dialog).getByRole('textbox', { name: /Название страны/ })).toHaveValue('Китай');
  });
});
