import { describe, expect, it } from 'vitest';
import { fillPlaceholders, unknownPlaceholders } from './placeholders.js';

const ticket = { name: 'Ada', subject: 'Parcel', ticket_id: 'tkt_1234567890abcdef', number: '#1042' };

describe('macro placeholders', () => {
  it('fills the four placeholders as the server does, spaces inside the braces allowed, every time they occur', () => {
    expect(fillPlaceholders('Hi {{name}}, re {{ subject }} ({{ticket_id}}, {{ number }}); {{name}}', ticket)).toBe(
      'Hi Ada, re Parcel (tkt_1234567890abcdef, #1042); Ada',
    );
  });
  it('leaves anything else as typed and names it once', () => {
    const text = 'Order {{order}} {{ Name }} {{order}} {name} {{name}}';
    expect(fillPlaceholders(text, ticket)).toBe('Order {{order}} {{ Name }} {{order}} {name} Ada');
    expect(unknownPlaceholders(text)).toEqual(['{{order}}', '{{ Name }}']);
    expect(unknownPlaceholders('Hi {{name}}')).toEqual([]);
  });
});
