import { pino } from 'pino';

/** What a log tool reads from a start line beside its text (`url`, `console_url`, a file's path): never a secret. */
type StartFields = Record<string, string>;

/**
 * What the start tells whoever started the server (the address, the first keys, a migration): `lines`
 * for a person, `fields` for a tool. A line with no fields is a string.
 */
export type Say = (lines: string | string[], fields?: StartFields) => void;

/**
 * `say` for a person at a terminal (or a test's `print`): the lines as they are. Anywhere else (a
 * service manager's journal, a log shipper, a file) standard output is the JSON log, and a plain line
 * among it breaks whatever parses it: each message is then one JSON log line like pino's others, its
 * lines joined as `msg`, with the fields. Written at level info whatever TICKETING_LOG_LEVEL says, as
 * the plain lines were: the address and where the first keys are must reach the operator.
 */
export function startLines(
  print: ((line: string) => void) | undefined,
  log: { write(line: string): void; flush?(): void },
): Say {
  if (print)
    return (lines) => {
      for (const line of typeof lines === 'string' ? [lines] : lines) print(line);
    };
  const json = pino({ level: 'info', base: undefined }, log);
  return (lines, fields = {}) => {
    const msg = (typeof lines === 'string' ? [lines] : lines)
      .join(' ')
      .replace(/\s+/g, ' ') // the columns line up for a person; a log's reader greps
      .trim();
    if (!msg) return; // a blank line only spaces the text for a person
    json.info(fields, msg);
    log.flush?.(); // the harness or person waiting for "listening on" sees it now, not 20 ms later
  };
}
