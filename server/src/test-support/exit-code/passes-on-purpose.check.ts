import { expect, it } from 'vitest';

// Not a test of the product: the passing test that exit-code.test.ts runs to see the run pass.
it('passes on purpose', () => expect(1).toBe(1));
