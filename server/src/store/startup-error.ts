/** A reason the server refuses to start; main prints the message and the hint and exits non-zero. */
export class StartupError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}
