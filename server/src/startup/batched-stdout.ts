/**
 * How long a log line may wait to be joined by others: short enough that a person reading the log
 * sees nothing late, long enough that under load one write carries many lines.
 */
export const LOG_DELAY_MS = 20;
/** Pending log text that is written at once, without waiting: a burst of lines stays bounded. */
const MAX_PENDING = 64 * 1024;

/**
 * The server log's destination: standard output, one write for the lines of a few milliseconds
 * instead of one per line. The access log writes a line for every request; written one by one, that
 * is a write(2) per request, which cost more than the line itself (see BENCHMARKS.md). On Linux,
 * process.stdout is synchronous for files, pipes and terminals, so a line handed over is written; what
 * is still pending when the process exits (process.exit after a stop, or a crash) is written by the
 * exit handler: a normal stop loses no line.
 */
export function batchedStdout(
  out: { write(chunk: string): unknown } = process.stdout,
  delayMs = LOG_DELAY_MS,
): {
  write(line: string): void;
  /** Writes what is pending now: before anything else is written to the same stdout, to keep the order. */
  flush(): void;
} {
  let pending = '';
  let timer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (!pending) return;
    const chunk = pending;
    pending = '';
    out.write(chunk);
  };
  process.on('exit', flush);
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= MAX_PENDING) flush();
      // Unref'd: a pending line never keeps the process alive; the exit handler writes it.
      else timer ??= setTimeout(flush, delayMs).unref();
    },
    flush,
  };
}
