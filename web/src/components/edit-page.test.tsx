import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';

import { notify } from '@/lib/notifications';

import { EditPage } from './edit-page';

vi.mock('@/lib/notifications', () => ({ notify: { error: vi.fn(), success: vi.fn() } }));

type Thing = { id: bigint; name: string };

const loaded = { isError: false, isPending: false, dataUpdatedAt: 1 };

/** The shell around a one-field form; `save` decides how saving ends. */
function renderPage(
  save: (thing: Thing, name: string) => Promise<unknown>,
  props: Partial<{ id: bigint; load: typeof loaded; entity: Thing }> = {},
) {
  const entity = 'entity' in props ? props.entity : { id: 5n, name: 'Кардиология' };
  return render(
    <EditPage
      id={'id' in props ? props.id : 5n}
      load={props.load ?? loaded}
      entity={entity}
      loadFailed="Не удалось загрузить"
      title={(thing) => thing.name}
      formId="thing"
      save={save}
      saved="Сохранено"
      failed={(error) => `Ошибка: ${String(error)}`}
      maxWidth={880}
      below={(thing) => <p>Ниже: {String(thing.id)}</p>}
    >
      {(thing, form) => (
        <form
          id={form.id}
          onSubmit={(event) => {
            event.preventDefault();
            form.onSubmit(new FormData(event.currentTarget).get('name') as string);
          }}
        >
          <input name="name" aria-label="Название" defaultValue={thing.name} disabled={form.disabled} />
        </form>
      )}
    </EditPage>,
  );
}

describe('EditPage', () => {
  afterEach(() => vi.clearAllMocks());

  it('shows the load failure for a bad id, a failed load and a load without the entity', () => {
    const never = () => Promise.resolve();
    const { unmount } = renderPage(never, { id: undefined });
    expect(screen.getByRole('alert')).toHaveTextContent('Не удалось загрузить');
    unmount();
    const failed = renderPage(never, { load: { ...loaded, isError: true } });
    expect(screen.getByRole('alert')).toHaveTextContent('Не удалось загрузить');
    failed.unmount();
    renderPage(never, { entity: undefined });
    expect(screen.getByRole('alert')).toHaveTextContent('Не удалось загрузить');
  });

  it('shows the loading state while pending', () => {
    renderPage(() => Promise.resolve(), { load: { ...loaded, isPending: true } });
    expect(screen.getByRole('status', { name: 'Загрузка...' })).toBeInTheDocument();
  });

  it('saves the entity with the edited values, locks the form meanwhile and says so', async () => {
    let finish = () => {};
    const save = vi.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    renderPage(save);
    expect(screen.getByRole('heading', { name: 'Кардиология' })).toBeInTheDocument();
    expect(screen.getByText('Ниже: 5')).toBeInTheDocument();

    const user = userEvent.setup();
    await user.clear(screen.getByRole('textbox', { name: 'Название' }));
    await user.type(screen.getByRole('textbox', { name: 'Название' }), 'Неврология');
    await user.click(screen.getByRole('button', { name: 'Сохранить' }));
    expect(save).toHaveBeenCalledWith({ id: 5n, name: 'Кардиология' }, 'Неврология');
    expect(screen.getByRole('textbox', { name: 'Название' })).toBeDisabled();

    finish();
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Название' })).toBeEnabled());
    expect(notify.success).toHaveBeenCalledWith('Сохранено');
    expect(notify.error).not.toHaveBeenCalled();
  });

  it('a failed save shows its toast and unlocks the form with what was typed', async () => {
    renderPage(() => Promise.reject(new Error('занято')));
    const user = userEvent.setup();
    await user.type(screen.getByRole('textbox', { name: 'Название' }), '!');
    await user.click(screen.getByRole('button', { name: 'Сохранить' }));
    await waitFor(() => expect(notify.error).toHaveBeenCalledWith('Ошибка: Error: занято'));
    expect(notify.success).not.toHaveBeenCalled();
    expect(screen.getByRole('textbox', { name: 'Название' })).toBeEnabled();
    expect(screen.getByRole('textbox', { name: 'Название' })).toHaveValue('Кардиология!');
  });
});
