import { describe, expect, it } from 'vitest';
import { putBack, statusesInUse } from './statusesInUse.js';

describe('a refused status removal', () => {
  it('reads the server’s details per status', () => {
    const details = [
      { param: 'statuses', message: '"pending" is still the status of 3 ticket(s)' },
      { param: 'statuses', message: '"pending" is still used by rules.escalate, macros.wait' },
      { param: 'statuses', message: '"answered" is still the status of 1 ticket(s)' },
      { param: 'statuses', message: 'something else' },
    ];
    expect(statusesInUse({ details })).toEqual({
      pending: [{ tickets: 3 }, { usedBy: 'rules.escalate, macros.wait' }],
      answered: [{ tickets: 1 }],
    });
  });
  it('puts the kept statuses back where they stood, keeping every other edit', () => {
    const saved = [{ id: 'open' }, { id: 'pending' }, { id: 'answered' }, { id: 'closed' }];
    const draft = [{ id: 'open' }, { id: 'closed' }, { id: 'new' }];
    expect(putBack(draft, saved, ['answered', 'pending']).map((s) => s.id)).toEqual([
      'open',
      'pending',
      'answered',
      'closed',
      'new',
    ]);
    // A status already back in the draft is not doubled.
    expect(putBack(saved, saved, ['pending'])).toEqual(saved);
  });
});
