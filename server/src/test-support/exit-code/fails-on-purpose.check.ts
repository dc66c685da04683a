import { expect, it } from 'vitest';

// Not a test of the product: the failing test that exit-code.test.ts runs to see the run fail.
it('fails on purpose', () => expect(1).toBe(2));
