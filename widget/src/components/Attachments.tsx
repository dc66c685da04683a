import { useSignal } from '@preact/signals';
import { useStore } from '../state/context.js';

const MAX = 5 * 1024 * 1024;
const ALLOWED = /\.(jpe?g|png|gif|webp|pdf|txt|log|json|csv|zip)$/i;

/** Files by picker, drag and drop, or paste; checked for size and type before anything is sent. */
export function Attachments(props: {
  id: string;
  files: File[];
  onChange: (files: File[]) => void;
  error?: string | undefined;
}) {
  const { t, fill } = useStore();
  const over = useSignal(false);
  const problem = useSignal('');
  const add = (list: FileList | File[] | null | undefined) => {
    const next = [...props.files];
    for (const f of Array.from(list ?? [])) {
      if (f.size > MAX) problem.value = fill(t.fileTooLarge, { name: f.name });
      else if (!ALLOWED.test(f.name)) problem.value = fill(t.fileType, { name: f.name });
      else next.push(f);
    }
    props.onChange(next.slice(0, 10));
  };
  const error = props.error ?? (problem.value || undefined);
  return (
    <div
      class={over.value ? 'drop over' : 'drop'}
      onDragOver={(e) => {
        e.preventDefault();
        over.value = true;
      }}
      onDragLeave={() => (over.value = false)}
      onDrop={(e) => {
        e.preventDefault();
        over.value = false;
        add(e.dataTransfer?.files);
      }}
      onPaste={(e) => add(e.clipboardData?.files)}
    >
      <label for={props.id}>{t.attachments}</label>
      <div class="row">
        <input
          id={props.id}
          type="file"
          multiple
          onChange={(e) => add(e.currentTarget.files)}
          aria-describedby={error ? `${props.id}-err` : undefined}
        />
        <span class="muted">{t.dropHint}</span>
      </div>
      {props.files.length > 0 && (
        <div class="files">
          {props.files.map((f, i) => (
            <span class="chip">
              {f.name}
              <button
                type="button"
                class="link"
                aria-label={`${t.remove} ${f.name}`}
                onClick={() => props.onChange(props.files.filter((_, j) => j !== i))}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      )}
      {error && (
        <p class="err" id={`${props.id}-err`}>
          {error}
        </p>
      )}
    </div>
  );
}
