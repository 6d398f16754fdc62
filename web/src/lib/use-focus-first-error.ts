import { useEffect, useRef, useState } from 'react';

/**
 * Moves the focus to a form's first wrong field after a refused submit (issue 19 point 12).
 * Attach `formRef` to the form and call `focusFirstError()` when its submit is refused: once
 * the errors are rendered, the first control MUI marks `aria-invalid="true"` (a TextField with
 * `error`) takes the focus, so a keyboard or screen-reader user lands where the message is.
 */
export function useFocusFirstError<T extends HTMLElement = HTMLFormElement>() {
  const formRef = useRef<T>(null);
  const [refusals, setRefusals] = useState(0);

  useEffect(() => {
    if (refusals === 0) return;
    const first = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    first?.focus();
  }, [refusals]);

  return { formRef, focusFirstError: () => setRefusals((count) => count + 1) };
}
