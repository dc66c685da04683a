import { describe, expect, it } from 'vitest';
import { readOptions } from './options.js';

const src = 'https://support.example.com/widget.js';

describe('readOptions', () => {
  it('takes the public key and derives the API base from the script origin', () => {
    const key = 'pk_live_' + 'a'.repeat(24);
    expect(readOptions({ dataset: { key }, src })).toEqual({ key, api: 'https://support.example.com/v1' });
  });

  it('refuses a secret key', () => {
    const result = readOptions({ dataset: { key: 'sk_live_' + 'a'.repeat(24) }, src });
    expect(result).toHaveProperty('error');
    expect((result as { error: string }).error).toMatch(/secret key/);
  });

  it('honours data-api', () => {
    const key = 'pk_test_' + 'b'.repeat(24);
    expect(readOptions({ dataset: { key, api: 'http://127.0.0.1:3000/v1/' }, src })).toEqual({
      key,
      api: 'http://127.0.0.1:3000/v1',
    });
  });
});
