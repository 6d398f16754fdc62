import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';

import { DraftContext } from './unsaved';
import { useFormState } from './use-form-state';

type Values = { name: string; code: string };

const validate = ({ name, code }: Values) => ({
  name: name.trim() === '' ? 'Введите название' : undefined,
  code: code === '0' ? 'Не может быть 0' : undefined,
});

/** Two fields; `formRef` is attached, so a refused submit moves the focus. */
function Form({ live = false, onValid }: { live?: boolean; onValid: (values: Values) => void }) {
  const { values, set, errors, submit, formRef } = useFormState({
    initial: { name: '', code: '' },
    validate,
    live,
  });
  const field = (key: keyof Values) => (
    <p>
      <input
        aria-label={key}
        value={values[key]}
        onChange={(event) => set(key, event.target.value)}
        aria-invalid={errors?.[key] !== undefined}
      />
      {errors?.[key]}
    </p>
  );
  return (
    <form ref={formRef} noValidate onSubmit={submit(onValid)}>
      {field('code')}
      {field('name')}
      <button type="submit">Создать</button>
    </form>
  );
}

describe('useFormState', () => {
  it('shows nothing before a submit, then the messages, and points at the first wrong field', async () => {
    const user = userEvent.setup();
    const onValid = vi.fn();
    render(<Form onValid={onValid} />);
    await user.type(screen.getByRole('textbox', { name: 'code' }), '0');
    expect(screen.queryByText('Не может быть 0')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Создать' }));

    expect(onValid).not.toHaveBeenCalled();
    expect(screen.getByText('Не может быть 0')).toBeInTheDocument();
    expect(screen.getByText('Введите название')).toBeInTheDocument();
    expect(screen.getByRole('textbox', { name: 'code' })).toHaveFocus();
  });

  it("clears an edited field's message until the next submit, and hands on valid values", async () => {
    const user = userEvent.setup();
    const onValid = vi.fn();
    render(<Form onValid={onValid} />);
    await user.click(screen.getByRole('button', { name: 'Создать' }));
    const name = screen.getByRole('textbox', { name: 'name' });

    await user.type(name, 'х');
    await user.clear(name);
    expect(screen.queryByText('Введите название')).toBeNull();

    await user.type(name, 'Хирургия');
    await user.click(screen.getByRole('button', { name: 'Создать' }));
    expect(onValid).toHaveBeenCalledWith({ name: 'Хирургия', code: '' });
  });

  it('lets the messages follow every edit after a submit when live', async () => {
    const user = userEvent.setup();
    render(<Form live onValid={vi.fn()} />);
    await user.click(screen.getByRole('button', { name: 'Создать' }));
    const name = screen.getByRole('textbox', { name: 'name' });

    await user.type(name, 'х');
    expect(screen.queryByText('Введите название')).toBeNull();
    await user.clear(name);
    expect(screen.getByText('Введите название')).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: 'code' }), '0');
    expect(screen.getByText('Не может быть 0')).toBeInTheDocument();
  });

  it('tells the dialog or page around it whether the values differ from the start', async () => {
    const user = userEvent.setup();
    const report = vi.fn();
    render(
      <DraftContext value={report}>
        <Form onValid={vi.fn()} />
      </DraftContext>,
    );
    const name = screen.getByRole('textbox', { name: 'name' });

    await user.type(name, 'х');
    expect(report).toHaveBeenLastCalledWith(expect.any(String), true);
    await user.clear(name);
    expect(report).toHaveBeenLastCalledWith(expect.any(String), false);
  });
});
