/** The fastest of five runs of `work`, in ms: a loaded machine only ever slows a run down. */
export function bestTime(work: () => unknown): number {
  let t = Infinity;
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    work();
    t = Math.min(t, performance.now() - started);
  }
  return t;
}

/** `shape` repeated to at least `length` characters. */
export const repeatTo = (shape: string, length: number) => shape.repeat(Math.ceil(length / shape.length));
