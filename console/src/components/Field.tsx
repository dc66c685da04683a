import type { Ref, TargetedEvent } from 'preact';

interface FieldProps {
  id: string;
  label: string;
  value: string;
  onInput: (e: TargetedEvent<HTMLInputElement, Event>) => void;
  error?: string | undefined;
  hint?: string;
  type?: 'text' | 'email' | 'password';
  autocomplete?: string;
  inputMode?: 'text' | 'numeric';
  spellcheck?: boolean;
  inputRef?: Ref<HTMLInputElement>;
}

/** A labelled input with its error right below it, tied together for screen readers. */
export function Field({ id, label, error, hint, inputRef, ...input }: FieldProps) {
  const described = [hint && `${id}-hint`, error && `${id}-err`].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input
        ref={inputRef}
        id={id}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={described}
        // Preact's types tell input types apart (a union does not fit any one of them).
        type={(input.type ?? 'text') as 'text'}
        autocomplete={input.autocomplete}
        inputMode={input.inputMode}
        spellcheck={input.spellcheck}
        value={input.value}
        onInput={input.onInput}
      />
      {hint && (
        <p class="hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {error && (
        <p class="err" id={`${id}-err`}>
          {error}
        </p>
      )}
    </div>
  );
}
