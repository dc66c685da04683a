/**
 * A test seam for disk faults: every file operation of a write passes through faultPoint(), which does
 * nothing unless a test installed an injector. Tests use it to make the n-th operation fail (EIO), or
 * every write fail as on a read-only disk (EROFS), and then check that nothing half-done remains.
 */
export type FaultInjector = (operation: string, path: string) => void;

let injector: FaultInjector | undefined;

export function setFaultInjector(next: FaultInjector | undefined) {
  injector = next;
}

export function faultPoint(operation: string, path: string) {
  injector?.(operation, path);
}

export function ioError(code: 'EIO' | 'EROFS', operation: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: injected fault in ${operation}`), { code });
}
