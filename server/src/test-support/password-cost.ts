/**
 * Runs `body` with passwords hashed at the production cost, in this process's servers: for the tests
 * about that cost itself or about timing that the hash dominates (the run's default is the test set-up's
 * low cost, see settings/passwords.ts). Servers started as child processes always have the full cost.
 */
export async function atFullPasswordCost<T>(body: () => Promise<T>): Promise<T> {
  const before = process.env.TICKETING_TEST_PASSWORD_COST;
  delete process.env.TICKETING_TEST_PASSWORD_COST;
  try {
    return await body();
  } finally {
    if (before !== undefined) process.env.TICKETING_TEST_PASSWORD_COST = before;
  }
}
