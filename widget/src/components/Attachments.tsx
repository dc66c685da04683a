import { useBox } from '../state/box.js';
import { useRef } from 'preact/hooks';
import { useStore } from '../state/context.js';

// The server's limits (http/multipart.ts, files/check-file.ts): checked here first, in words.
const MAX_BYTES = 5 * 1024 * 1024;
const MAX_FILES = 10;
const ALLOWED = /\.(jpe?g|png|gif|webp|pdf|txt|log|json|csv|zip)$/i;

/**
 * Files by picker, drag and drop, or paste; checked for size and type before anything is sent. The
 * browser's own file input ("Choose file / No file chosen", in the browser's language) is hidden: a
 * button in the widget's language opens it, and a line says how many files are chosen.
 */
export function Attachments(props: {
  id: string;
  files: File[];
  onChange: (files: File[]) => void;
  error?: string | undefined;
}) {
  const { t, fill, count } = useStore();
  const input = useRef<HTMLInputElement>(null);
  const over = useBox(false);
  const problems = useBox<string[]>([]);
  const add = (list: FileList | File[] | null | undefined) => {
    const next = [...props.files];
    const found: string[] = [];
    for (const f of Array.from(list ?? [])) {
      if (f.size > MAX_BYTES) found.push(fill(t.fileTooLarge, { name: f.name }));
      else if (!ALLOWED.test(f.name)) found.push(fill(t.fileType, { name: f.name }));
      else if (next.length >= MAX_FILES) found.push(fill(t.tooManyFiles, { max: MAX_FILES }));
      else next.push(f);
    }
    problems.value = [...new Set(found)];
    props.onChange(next);
  };
  const errors = props.error ? [props.error, ...problems.value] : problems.value;
  const errId = `${props.id}-err`;
  const summaryId = `${props.id}-count`;
  return (
    <div
      class={over.value ? 'drop over' : 'drop'}
      role="group"
      aria-labelledby={`${props.id}-label`}
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
      <label id={`${props.id}-label`} for={props.id}>
        {t.attachments}
      </label>
      <input
        ref={input}
        id={props.id}
        type="file"
        multiple
        hidden
        onChange={(e) => {
          add(e.currentTarget.files);
          e.currentTarget.value = ''; // the same file can be chosen again after removing it
        }}
      />
      <div class="row">
        <button
          type="button"
          class="btn ghost"
          aria-describedby={errors.length ? `${summaryId} ${errId}` : summaryId}
          onClick={() => input.current?.click()}
        >
          {t.addFiles}
        </button>
        <span class="muted" id={summaryId} aria-live="polite">
          {props.files.length ? count(t.files, props.files.length) : t.dropHint}
        </span>
      </div>
      {props.files.length > 0 && (
        <ul class="files">
          {props.files.map((f, i) => (
            <li class="chip">
              {f.name}
              <button
                type="button"
                class="link"
                aria-label={fill(t.remove, { name: f.name })}
                onClick={() => props.onChange(props.files.filter((_, j) => j !== i))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {errors.length > 0 && (
        <div class="err" id={errId} tabIndex={-1}>
          {errors.map((e) => (
            <p>{e}</p>
          ))}
        </div>
      )}
    </div>
  );
}
