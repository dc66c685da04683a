import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { accessLine, type AccessFields } from './access-log.js';

describe('accessLine', () => {
  // The logger boot makes (level info, no base fields), with its time fixed to compare lines.
  const lines: string[] = [];
  const logger = pino(
    { level: 'info', base: undefined, timestamp: () => ',"time":1764000000123' },
    { write: (line: string) => void lines.push(line) },
  );

  it.each<AccessFields>([
    { reqId: 'AbCdEfGhIjKl-1z', method: 'GET', path: '/v1/ticket', status: 200, ms: 0.4, key: 'sk_live_SSSS' },
    { reqId: 'proxy.id_42', method: 'POST', path: '/v1/create', status: 201, ms: 12, key: undefined },
    { reqId: 'r-1', method: 'GET', path: '/v1/"quoted"\\back', status: 404, ms: 1.5, key: 'pk_test_PPPP' },
    { reqId: 'r-2', method: 'GET', path: '/v1/caf\u00e9', status: 500, ms: 1000.1, key: 'agent:agt_x' },
  ])('is the line pino writes for %j', (fields) => {
    lines.length = 0;
    logger.info(fields, 'request');
    expect(accessLine(fields, 1764000000123)).toBe(lines[0]);
  });
});
