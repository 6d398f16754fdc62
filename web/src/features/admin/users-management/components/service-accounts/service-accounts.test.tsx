import { createRouterTransport } from '@connectrpc/connect';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { AuthService } from '@/gen/portal/auth/v1/auth_pb';
import { formatMoment, formatMomentToSecond } from '@/lib/dates';
import { renderPage } from '@/testing/render-with-transport';
import { signInAs } from '@/testing/session';

import type { ServiceAccount } from '../../api/service-account-queries';
import { ServiceAccountPage } from './service-account-page';
import { ServiceAccountsPage } from './service-accounts-page';

const listPath = '/admin/users-management/service-accounts';
const pagePattern = `${listPath}/:serviceAccountId`;

const hr: ServiceAccount = {
  id: 1,
  clientId: 'svc-hr-7f3a',
  name: 'Кадровая система',
  description: '1С:ЗУП, выгрузка сотрудников',
  ownerId: 7,
  ownerName: 'Смирнова Ольга Викторовна',
  scopes: ['staff.read', 'staff.write'],
  active: true,
  hasPublicKey: false,
  secrets: [{ id: 11, createdAt: '2026-11-20T08:00:00Z', lastUsedAt: '2026-11-25T09:30:00Z' }],
  lastUsedAt: '2026-11-25T09:30:00Z',
  lastUsedFrom: '10.20.0.15',
  createdAt: '2026-11-20T08:00:00Z',
};

const quality: ServiceAccount = {
  ...hr,
  id: 2,
  clientId: 'svc-quality-19c2',
  name: 'Отчётность отдела качества',
  description: '',
  ownerId: 8,
  ownerName: 'Иванов Пётр Сергеевич',
  scopes: ['training.read'],
  active: false,
  secrets: [{ id: 21, createdAt: '2026-11-21T10:00:00Z', lastUsedAt: null }],
  lastUsedAt: null,
  lastUsedFrom: null,
};

type Call = { path: string; body: Record<string, unknown> | undefined };

/**
 * The gateway's /api/service-account/* routes over an in-memory list, answering in the
 * envelope; a name already taken is refused as the server refuses it (409, Russian message).
 */
function restServer(initial: ServiceAccount[]) {
  const accounts = structuredClone(initial);
  const calls: Call[] = [];
  let next = 100;
  const ok = (data: unknown) => Response.json({ success: true, data, errorMessage: null });
  const refuse = (status: number, errorMessage: string) =>
    Response.json({ success: false, data: null, errorMessage }, { status });

  const fetchMock = vi.fn<typeof fetch>(async (input, init) => {
    await Promise.resolve();
    // callRest sends a path and, for a write, a JSON string.
    const path = input as string;
    const body =
      typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : undefined;
    calls.push({ path, body });
    const route = path.replace('/api/service-account/', '');
    const account = accounts.find((one) => one.id === body?.id);
    switch (route) {
      case 'get-all':
        return ok(accounts);
      case 'create': {
        const name = String(body?.name);
        if (accounts.some((one) => one.name === name)) {
          return refuse(409, 'Внешняя система с таким названием уже есть');
        }
        const id = next++;
        accounts.push({
          ...hr,
          id,
          clientId: `svc-new-${id}`,
          name,
          description: String(body?.description),
          scopes: body?.scopes as string[],
          ownerId: Number(body?.ownerId),
          secrets: [{ id: id * 10, createdAt: '2026-11-25T12:00:00Z', lastUsedAt: null }],
          lastUsedAt: null,
          lastUsedFrom: null,
        });
        return ok({ id, clientId: `svc-new-${id}`, clientSecret: `secret-of-${id}` });
      }
      case 'rotate-secret': {
        if (!account) return refuse(404, 'Внешняя система не найдена');
        const secretId = next++;
        account.secrets = [
          ...account.secrets.slice(-1),
          { id: secretId, createdAt: '2026-11-25T13:00:00Z', lastUsedAt: null },
        ];
        return ok({ clientSecret: `rotated-${secretId}`, secretId });
      }
      case 'revoke-secret':
        if (!account) return refuse(404, 'Внешняя система не найдена');
        account.secrets = account.secrets.filter((secret) => secret.id !== body?.secretId);
        return ok(null);
      case 'disable':
      case 'enable':
        if (!account) return refuse(404, 'Внешняя система не найдена');
        account.active = route === 'enable';
        return ok(null);
      case 'set-public-key':
        if (!account) return refuse(404, 'Внешняя система не найдена');
        if (body?.publicKey !== '' && !String(body?.publicKey).startsWith('-----BEGIN PUBLIC KEY-----')) {
          return refuse(400, 'Ключ не похож на открытый ключ в формате PEM');
        }
        account.hasPublicKey = body?.publicKey !== '';
        return ok(null);
      case 'update':
        if (!account) return refuse(404, 'Внешняя система не найдена');
        Object.assign(account, {
          name: body?.name,
          description: body?.description,
          scopes: body?.scopes,
          ownerId: body?.ownerId,
        });
        return ok(null);
      default:
        return refuse(404, 'Нет такого адреса');
    }
  });
  /** What was POSTed to `route`, in order. */
  const sent = (route: string) =>
    calls.filter((call) => call.path === `/api/service-account/${route}`).map((call) => call.body);
  return { fetchMock, sent, accounts };
}

/** The auth service's people, for the owner field. */
const auth = createRouterTransport(({ service }) =>
  service(AuthService, {
    listUsers: () => ({
      users: [
        { id: 7n, surname: 'Смирнова', name: 'Ольга', lastName: 'Викторовна', login: 'nurse' },
        { id: 8n, surname: 'Иванов', name: 'Пётр', lastName: 'Сергеевич', login: 'ivanov' },
      ],
    }),
  }),
);

let server: ReturnType<typeof restServer>;

beforeEach(() => {
  signInAs({ sub: '7', rights: ['UserManagement'] });
  server = restServer([hr, quality]);
  vi.stubGlobal('fetch', server.fetchMock);
});
afterEach(() => vi.unstubAllGlobals());

describe('the external systems list', () => {
  it('shows each system with its client id, scopes, state, last use and owner', async () => {
    renderPage(<ServiceAccountsPage />, { transport: auth, pattern: listPath, path: listPath });

    const list = await screen.findByRole('list', { name: 'Внешние системы' });
    const item = (name: string) => {
      const found = within(list).getByRole('link', { name }).closest('li');
      if (found === null) throw new Error(`${name} is not in a list item`);
      return found;
    };
    expect(list.firstElementChild).toBe(item('Кадровая система'));
    const first = item('Кадровая система');
    const second = item('Отчётность отдела качества');

    expect(within(first).getByRole('link', { name: 'Кадровая система' })).toHaveAttribute(
      'href',
      `${listPath}/1`,
    );
    expect(first).toHaveTextContent('svc-hr-7f3a');
    expect(first).toHaveTextContent('Сотрудники: чтение (staff.read)');
    expect(first).toHaveTextContent(
      'Сотрудники: изменение (синхронизация с кадровой системой) (staff.write)',
    );
    expect(first).toHaveTextContent('Активна');
    expect(first).toHaveTextContent(
      `Последнее использование: ${formatMoment('2026-11-25T09:30:00Z')}, с адреса 10.20.0.15`,
    );
    expect(first).toHaveTextContent('Ответственный: Смирнова Ольга Викторовна');

    expect(second).toHaveTextContent('Отключена');
    expect(second).toHaveTextContent('Последнее использование: ещё не использовалась');
    expect(second).toHaveTextContent('Обучение: чтение результатов (training.read)');
  });

  it('copies a client id to the clipboard and says so', async () => {
    const user = userEvent.setup();
    renderPage(<ServiceAccountsPage />, { transport: auth, pattern: listPath, path: listPath });

    const buttons = await screen.findAllByRole('button', { name: 'Скопировать: ID клиента' });
    await user.click(buttons[0] as HTMLElement);
    expect(await screen.findByText('Скопировано в буфер обмена')).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe('svc-hr-7f3a');
  });
});

describe('registering a system', () => {
  async function openCreate(user: ReturnType<typeof userEvent.setup>) {
    renderPage(<ServiceAccountsPage />, { transport: auth, pattern: listPath, path: listPath });
    await user.click(await screen.findByRole('button', { name: 'Подключить систему' }));
    return screen.findByRole('dialog', { name: 'Новая внешняя система' });
  }

  it('refuses a system without a name or a scope, the focus on the first wrong field', async () => {
    const user = userEvent.setup();
    const dialog = await openCreate(user);

    await user.click(within(dialog).getByRole('button', { name: 'Создать' }));
    expect(within(dialog).getByText('Введите название системы')).toBeVisible();
    expect(within(dialog).getByText('Отметьте хотя бы один доступ')).toBeVisible();
    expect(within(dialog).getByRole('textbox', { name: /^Название системы/ })).toHaveFocus();

    await user.type(within(dialog).getByRole('textbox', { name: /^Название системы/ }), 'МИС');
    await user.click(within(dialog).getByRole('button', { name: 'Создать' }));
    expect(within(dialog).getByRole('checkbox', { name: 'Сотрудники: чтение (staff.read)' })).toHaveFocus();
    expect(server.sent('create')).toEqual([]);
  });

  it('sends name, description, scopes and the admin as owner, then shows the secret once', async () => {
    const user = userEvent.setup();
    const dialog = await openCreate(user);

    // The owner is the admin registering it unless another person is chosen.
    await waitFor(() =>
      expect(within(dialog).getByRole('combobox', { name: /^Ответственный сотрудник/ })).toHaveValue(
        'Смирнова Ольга Викторовна',
      ),
    );
    await user.type(within(dialog).getByRole('textbox', { name: /^Название системы/ }), '  МИС «Ариадна» ');
    await user.type(within(dialog).getByRole('textbox', { name: /^Описание/ }), 'Назначение курсов');
    await user.click(
      within(dialog).getByRole('checkbox', { name: 'Обучение: назначение курсов (training.assign)' }),
    );
    await user.click(within(dialog).getByRole('checkbox', { name: 'Сотрудники: чтение (staff.read)' }));
    await user.click(within(dialog).getByRole('button', { name: 'Создать' }));

    const secret = await screen.findByRole('dialog', { name: 'Система зарегистрирована' });
    expect(server.sent('create')).toEqual([
      {
        name: 'МИС «Ариадна»',
        description: 'Назначение курсов',
        scopes: ['staff.read', 'training.assign'],
        ownerId: 7,
      },
    ]);
    expect(secret).toHaveTextContent(
      'Секрет показывается один раз. Сохраните его сейчас: позже его нельзя будет посмотреть.',
    );
    expect(within(secret).getByRole('textbox', { name: 'ID клиента (client_id)' })).toHaveValue(
      'svc-new-100',
    );
    expect(within(secret).getByRole('textbox', { name: 'Секрет клиента (client_secret)' })).toHaveValue(
      'secret-of-100',
    );
    await user.click(
      within(secret).getByRole('button', { name: 'Скопировать: Секрет клиента (client_secret)' }),
    );
    expect(await navigator.clipboard.readText()).toBe('secret-of-100');

    // Escape does not close it, nor does the form's dialog closing beneath it.
    await user.keyboard('{Escape}');
    await act(() => new Promise((resolve) => setTimeout(resolve, 1500)));
    expect(secret).toBeVisible();
    expect(screen.queryByRole('dialog', { name: 'Новая внешняя система' })).not.toBeInTheDocument();

    await user.click(within(secret).getByRole('button', { name: 'Я сохранил секрет, закрыть' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.queryByDisplayValue('secret-of-100')).not.toBeInTheDocument();
    expect(await screen.findByRole('link', { name: 'МИС «Ариадна»' })).toBeVisible();
  });

  it("shows the server's Russian refusal and keeps what was typed", async () => {
    const user = userEvent.setup();
    const dialog = await openCreate(user);

    await user.type(within(dialog).getByRole('textbox', { name: /^Название системы/ }), 'Кадровая система');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Сотрудники: чтение (staff.read)' }));
    await user.click(within(dialog).getByRole('button', { name: 'Создать' }));

    expect(await screen.findByText('Внешняя система с таким названием уже есть')).toBeInTheDocument();
    expect(within(dialog).getByRole('textbox', { name: /^Название системы/ })).toHaveValue(
      'Кадровая система',
    );
    expect(within(dialog).getByRole('button', { name: 'Создать' })).toBeEnabled();
    expect(screen.queryByRole('dialog', { name: 'Система зарегистрирована' })).not.toBeInTheDocument();
  });
});

describe("a system's page", () => {
  const open = (id: number) =>
    renderPage(<ServiceAccountPage />, { transport: auth, pattern: pagePattern, path: `${listPath}/${id}` });

  it('edits the name, scopes and owner', async () => {
    const user = userEvent.setup();
    open(1);

    const name = await screen.findByRole('textbox', { name: /^Название системы/ });
    expect(name).toHaveValue('Кадровая система');
    expect(screen.getByRole('checkbox', { name: 'Сотрудники: чтение (staff.read)' })).toBeChecked();
    await user.clear(name);
    await user.type(name, 'Кадры');
    await user.click(screen.getByRole('checkbox', { name: 'Сотрудники: чтение (staff.read)' }));
    await user.click(screen.getByRole('combobox', { name: /^Ответственный сотрудник/ }));
    await user.click(await screen.findByRole('option', { name: 'Иванов Пётр Сергеевич' }));
    await user.click(screen.getByRole('button', { name: 'Сохранить' }));

    expect(await screen.findByText('Внешняя система сохранена')).toBeInTheDocument();
    expect(server.sent('update')).toEqual([
      {
        id: 1,
        name: 'Кадры',
        description: '1С:ЗУП, выгрузка сотрудников',
        scopes: ['staff.write'],
        ownerId: 8,
      },
    ]);
  });

  it('issues a new secret after asking, shows it once and says the previous one still works', async () => {
    const user = userEvent.setup();
    open(1);

    await user.click(await screen.findByRole('button', { name: 'Выпустить новый секрет' }));
    const confirm = await screen.findByRole('dialog', { name: 'Выпустить новый секрет?' });
    expect(confirm).toHaveTextContent('Предыдущий продолжит работать, пока вы его не отзовёте.');
    await user.click(within(confirm).getByRole('button', { name: 'Выпустить' }));

    const secret = await screen.findByRole('dialog', { name: 'Новый секрет выпущен' });
    expect(server.sent('rotate-secret')).toEqual([{ id: 1 }]);
    expect(within(secret).getByRole('textbox', { name: 'ID клиента (client_id)' })).toHaveValue(
      'svc-hr-7f3a',
    );
    expect(within(secret).getByRole('textbox', { name: 'Секрет клиента (client_secret)' })).toHaveValue(
      'rotated-100',
    );
    expect(secret).toHaveTextContent('Секрет показывается один раз.');
    expect(secret).toHaveTextContent('Предыдущий секрет продолжит работать, пока вы его не отзовёте');
    await user.click(within(secret).getByRole('button', { name: 'Я сохранил секрет, закрыть' }));

    // Two secrets live now: a third would drop the older, and the question says so.
    const secrets = await screen.findByRole('list', { name: 'Действующие секреты' });
    await waitFor(() => expect(within(secrets).getAllByRole('listitem')).toHaveLength(2));
    await user.click(screen.getByRole('button', { name: 'Выпустить новый секрет' }));
    const again = await screen.findByRole('dialog', { name: 'Выпустить новый секрет?' });
    expect(again).toHaveTextContent(
      `Уже действуют два секрета: самый старый (выпущен ${formatMomentToSecond('2026-11-20T08:00:00Z')}) будет отозван сразу`,
    );
    await user.click(within(again).getByRole('button', { name: 'Отмена' }));
    expect(server.sent('rotate-secret')).toHaveLength(1);
  });

  it('revokes a secret after asking, warning when it is the last', async () => {
    const user = userEvent.setup();
    open(1);

    const issued = formatMomentToSecond('2026-11-20T08:00:00Z');
    const secrets = await screen.findByRole('list', { name: 'Действующие секреты' });
    expect(secrets).toHaveTextContent(`Выпущен ${issued}`);
    expect(secrets).toHaveTextContent(`использовался ${formatMoment('2026-11-25T09:30:00Z')}`);
    await user.click(within(secrets).getByRole('button', { name: `Отозвать секрет, выпущенный ${issued}` }));
    const confirm = await screen.findByRole('dialog', { name: 'Отозвать секрет?' });
    expect(confirm).toHaveTextContent('Это последний секрет системы');
    await user.click(within(confirm).getByRole('button', { name: 'Отозвать' }));

    expect(await screen.findByText('Секрет отозван')).toBeInTheDocument();
    expect(server.sent('revoke-secret')).toEqual([{ id: 1, secretId: 11 }]);
    expect(await screen.findByText(/Действующих секретов нет/)).toBeVisible();
  });

  it('tells apart two secrets issued in the same minute', async () => {
    const [first, second] = ['2026-11-20T08:00:05Z', '2026-11-20T08:00:41Z'];
    server = restServer([
      {
        ...hr,
        secrets: [
          { id: 11, createdAt: first, lastUsedAt: null },
          { id: 12, createdAt: second, lastUsedAt: null },
        ],
      },
    ]);
    vi.stubGlobal('fetch', server.fetchMock);
    open(1);

    const secrets = await screen.findByRole('list', { name: 'Действующие секреты' });
    const issued = within(secrets)
      .getAllByText(/^Выпущен /)
      .map((line) => line.textContent);
    expect(issued).toEqual([
      `Выпущен ${formatMomentToSecond(first)}`,
      `Выпущен ${formatMomentToSecond(second)}`,
    ]);
    expect(issued[0]).not.toBe(issued[1]);
    expect(issued[0]).toMatch(/:05$/);
    const revoke = within(secrets).getAllByRole('button', { name: /^Отозвать секрет, выпущенный/ });
    expect(new Set(revoke.map((button) => button.getAttribute('aria-label'))).size).toBe(2);
  });

  it('disables and enables the system, each after asking', async () => {
    const user = userEvent.setup();
    open(1);

    await user.click(await screen.findByRole('button', { name: 'Отключить' }));
    const confirm = await screen.findByRole('dialog', { name: 'Отключить систему?' });
    await user.click(within(confirm).getByRole('button', { name: 'Отключить' }));
    expect(await screen.findByText('Система отключена')).toBeInTheDocument();
    expect(server.sent('disable')).toEqual([{ id: 1 }]);

    await user.click(await screen.findByRole('button', { name: 'Включить' }));
    const back = await screen.findByRole('dialog', { name: 'Включить систему?' });
    await user.click(within(back).getByRole('button', { name: 'Включить' }));
    expect(await screen.findByText('Система включена')).toBeInTheDocument();
    expect(server.sent('enable')).toEqual([{ id: 1 }]);
  });

  it("registers a public key, shows the server's refusal of a wrong one, and removes it", async () => {
    const user = userEvent.setup();
    open(1);

    expect(await screen.findByText('Ключ не зарегистрирован.')).toBeVisible();
    const field = screen.getByRole('textbox', { name: 'Открытый ключ, PEM' });
    await user.click(screen.getByRole('button', { name: 'Сохранить ключ' }));
    expect(screen.getByText('Вставьте открытый ключ в формате PEM')).toBeVisible();
    expect(field).toHaveFocus();

    await user.click(field);
    await user.paste('не ключ');
    await user.click(screen.getByRole('button', { name: 'Сохранить ключ' }));
    expect(await screen.findByText('Ключ не похож на открытый ключ в формате PEM')).toBeInTheDocument();
    expect(field).toHaveValue('не ключ');

    const pem = '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----';
    await user.clear(field);
    await user.paste(pem);
    await user.click(screen.getByRole('button', { name: 'Сохранить ключ' }));
    expect(await screen.findByText('Ключ сохранён')).toBeInTheDocument();
    expect(await screen.findByText('Ключ зарегистрирован. Новый ключ заменит его.')).toBeVisible();
    expect(screen.getByRole('textbox', { name: 'Открытый ключ, PEM' })).toHaveValue('');

    await user.click(screen.getByRole('button', { name: 'Удалить ключ' }));
    const confirm = await screen.findByRole('dialog', { name: 'Удалить ключ?' });
    await user.click(within(confirm).getByRole('button', { name: 'Удалить ключ' }));
    expect(await screen.findByText('Ключ удалён')).toBeInTheDocument();
    expect(server.sent('set-public-key')).toEqual([
      { id: 1, publicKey: 'не ключ' },
      { id: 1, publicKey: pem },
      { id: 1, publicKey: '' },
    ]);
  });

  it('says the system is not found for an unknown id', async () => {
    open(999);
    expect(await screen.findByText('Внешняя система не найдена.')).toBeVisible();
  });
});
