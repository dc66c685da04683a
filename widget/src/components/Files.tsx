import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useStore } from '../state/context.js';
import { isImage } from '../state/store.js';
import type { Attachment } from '../types.js';

const UNITS = [
  [1024 * 1024, 'megabyte'],
  [1024, 'kilobyte'],
  [1, 'byte'],
] as const;

/**
 * A size as the locale writes it: "19 bytes", "1 byte", "1.2 kB", "3,4 Mo". Bytes are spelled out
 * (CLDR's plural rules pick "byte"/"bytes", "octet"/"octets"): the short form has no plural ("19 byte").
 */
function formatSize(bytes: number, locale: string): string {
  const [base, unit] = UNITS.find(([b]) => bytes >= b) ?? UNITS[2];
  return new Intl.NumberFormat(locale, {
    style: 'unit',
    unit,
    unitDisplay: base === 1 ? 'long' : 'short',
    maximumFractionDigits: 1,
  }).format(bytes / base);
}

/** An image attachment's thumbnail: fetched with the key, shown from an object URL. */
function Thumbnail({ file }: { file: Attachment }) {
  const s = useStore();
  const url = useSignal('');
  useEffect(() => {
    let live = true;
    // No thumbnail if it cannot be fetched (or a page's CSP has no img-src blob:): the name stays.
    s.thumbnail(file).then(
      (u) => live && (url.value = u),
      () => {},
    );
    return () => void (live = false);
  }, [file.id]);
  return url.value ? <img class="thumb" src={url.value} alt="" onError={() => (url.value = '')} /> : null;
}

/** The attachments of a message: name, size, a thumbnail for images; each one a download button. */
export function Files({ list }: { list: Attachment[] }) {
  const s = useStore();
  const { t, fill } = s;
  const failed = useSignal('');
  if (!list.length) return null;
  return (
    <>
      <ul class="files">
        {list.map((a) => (
          <li>
            <button
              type="button"
              class="file"
              title={fill(t.download, { name: a.name })}
              onClick={() => {
                failed.value = '';
                s.download(a).catch(() => (failed.value = fill(t.downloadFailed, { name: a.name })));
              }}
            >
              {isImage(a) && <Thumbnail file={a} />}
              <span class="name">{a.name}</span>
              <span class="size">{formatSize(a.size, s.ctx.locale)}</span>
            </button>
          </li>
        ))}
      </ul>
      {failed.value && (
        <p class="err" role="alert">
          {failed.value}
        </p>
      )}
    </>
  );
}
