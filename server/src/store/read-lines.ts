import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * The lines of a text file, read as a stream: a log of any size is read in constant memory (one
 * string of the whole file stops at V8's string limit, about 512 MB). A missing file has none.
 */
export async function* readLines(path: string): AsyncGenerator<string> {
  const input = createReadStream(path, { encoding: 'utf8' });
  const opened = new Promise<boolean>((resolve, reject) => {
    input.once('open', () => resolve(true));
    input.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ENOENT' ? resolve(false) : reject(err)));
  });
  if (!(await opened)) return;
  const lines = createInterface({ input, crlfDelay: Infinity });
  try {
    for await (const line of lines) yield line;
  } finally {
    lines.close();
    input.destroy();
  }
}
