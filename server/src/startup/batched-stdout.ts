/**
 * The server log's destination: standard output, one write per turn of the event loop instead of one
 * per line. The access log writes a line for every request; written one by one, that is a write(2)
 * per request, which cost more than the line itself (see BENCHMARKS.md). Lines are joined as they come
 * and handed to stdout once the turn's callbacks have run (setImmediate), so nothing waits longer than
 * the current turn. On Linux, process.stdout is synchronous for files, pipes and terminals, so a line
 * handed over is written; what is still pending when the process exits (process.exit after a stop, or
 * a crash) is written by the exit handler: a normal stop loses no line.
 */
export function batchedStdout(out: { write(chunk: string): unknown } = process.stdout): {
  write(line: string): void;
  /** Writes what is pending now: before anything else is written to the same stdout, to keep the order. */
  flush(): void;
} {
  let pending = '';
  const flush = () => {
    if (!pending) return;
    const chunk = pending;
    pending = '';
    out.write(chunk);
  };
  process.on('exit', flush);
  return {
    write(line: string) {
      if (!pending) setImmediate(flush);
      pending += line;
    },
    flush,
  };
}
