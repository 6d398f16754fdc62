import { fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { MaintenanceKind } from '@/gen/portal/wiki/v1/wiki_pb';

import { MaintenanceForm } from './maintenance-page';

describe('MaintenanceForm', () => {
  it('saves the kind of work chosen, not always planned maintenance', async () => {
    const user = userEvent.setup();
    const onSubmit = vi.fn();
    render(<MaintenanceForm disabled={false} onSubmit={onSubmit} />);

    await user.click(screen.getByRole('combobox', { name: 'Вид работ' }));
    await user.click(screen.getByRole('option', { name: 'Ремонт' }));
    expect(screen.getByRole('combobox', { name: 'Вид работ' })).toHaveTextContent('Ремонт');
    const performer = screen.getByRole('textbox', { name: /Кто выполнил/ });
    fireEvent.change(performer, { target: { value: 'Сервисный инженер' } });
    fireEvent.change(screen.getByRole('textbox', { name: /Выполненные работы/ }), {
      target: { value: 'Замена датчика' },
    });
    fireEvent.submit(performer.closest('form') ?? performer);

    await vi.waitFor(() => expect(onSubmit).toHaveBeenCalledOnce());
    expect(onSubmit.mock.calls[0]?.[0]).toMatchObject({ kind: MaintenanceKind.CORRECTIVE });
  }, 20_000);
});
