import { Low, Memory } from 'lowdb';
import { describe, expect, it } from 'vitest';
import { ConfigDataSchema, type ConfigData } from '../model/index.js';
import { lowConfigStore } from '../store/config-file.js';
import { upsertAgent } from './agents.js';
import { removeArticle, upsertArticle } from './articles.js';
import { CONFIG_RESOURCES, type WriteContext } from './resources.js';
import { setWebhookSecret } from './webhook-secrets.js';

// The configuration's rules, on lowdb's in-memory adapter: the same ConfigStore the server runs on
// config.json, without a data directory. Tickets come in only as a count (WriteContext).

const store = () => lowConfigStore(new Low<ConfigData>(new Memory(), ConfigDataSchema.parse({})));
const context = (ticketsWithStatus: Record<string, number> = {}): WriteContext => ({
  ticketsWithStatus: (status) => Promise.resolve(ticketsWithStatus[status] ?? 0),
  allowLocalWebhooks: false,
});
const smtp = { host: 'mail.example', port: 587, user: 'shop' };

describe('the configuration store on lowdb', () => {
  it('starts empty as created, checks every write whole, and keeps the last good one', async () => {
    const s = await store();
    expect(s.created).toBe(true);
    expect(s.get().statuses.map((x) => x.id)).toEqual(['open', 'pending', 'answered', 'closed']);
    const seen: string[] = [];
    s.onChange((d) => seen.push(d.design.title));
    await s.update((d) => void (d.design.title = 'Help'));
    await expect(s.update((d) => void (d.design.primary_color = 'red'))).rejects.toThrow();
    expect(s.get().design).toMatchObject({ title: 'Help', primary_color: '#2563eb' });
    expect(seen).toEqual(['Help']);
  });
});

describe('resource writes', () => {
  it('keep the SMTP password while its destination stays, forget it when the host changes, remove it on null', async () => {
    const s = await store();
    const mail = CONFIG_RESOURCES.mail;
    await mail.write(s, { from_address: 'help@shop.example', smtp: { ...smtp, pass: 'secret-1' } }, context());
    await mail.write(s, { from_address: 'help@shop.example', smtp }, context());
    expect(s.get().mail.smtp.pass).toBe('secret-1');
    expect(mail.read(s.get())).toMatchObject({ smtp: { pass_set: true } });
    expect(JSON.stringify(mail.read(s.get()))).not.toContain('secret-1');
    await mail.write(s, { smtp: { ...smtp, host: 'elsewhere.example' } }, context());
    expect(s.get().mail.smtp.pass).toBeNull();
    await mail.write(s, { smtp: { ...smtp, pass: 'secret-2' } }, context());
    await mail.write(s, { smtp: { ...smtp, pass: null } }, context());
    expect(s.get().mail.smtp.pass).toBeNull();
  });

  it('refuse to drop a status that tickets or the configuration still use (409), and a dangling reference (400)', async () => {
    const s = await store();
    const statuses = CONFIG_RESOURCES.statuses;
    const withoutPending = s.get().statuses.filter((x) => x.id !== 'pending');
    await expect(statuses.write(s, { statuses: withoutPending }, context({ pending: 2 }))).rejects.toMatchObject({
      status: 409,
      code: 'status_in_use',
      message: '"pending" is still the status of 2 ticket(s)',
    });
    await CONFIG_RESOURCES.macros.write(
      s,
      { macros: [{ id: 'wait', name: 'Wait', message: 'One moment', status: 'pending' }] },
      context(),
    );
    await expect(statuses.write(s, { statuses: withoutPending }, context())).rejects.toMatchObject({
      code: 'status_in_use',
      // (and by autoclose, which closes pending tickets by default)
      message: '"pending" is still used by macros, autoclose',
    });
    await expect(
      CONFIG_RESOURCES.macros.write(s, { macros: [{ id: 'x', name: 'X', message: 'x', status: 'gone' }] }, context()),
    ).rejects.toMatchObject({ status: 400, extra: { param: 'macros.0.status' } });
    expect(s.get().macros.map((m) => m.id)).toEqual(['wait']);
  });

  it('name every bad field of a list below the list, and refuse local webhook URLs', async () => {
    const s = await store();
    await expect(
      CONFIG_RESOURCES.categories.write(s, { categories: [{ id: 'Bad Id', name: '' }] }, context()),
    ).rejects.toMatchObject({ extra: { param: 'categories.0.id' } });
    const rule = {
      id: 'r',
      name: 'R',
      event: 'ticket.created',
      actions: [{ type: 'webhook', value: 'http://127.0.0.1/' }],
    };
    await expect(CONFIG_RESOURCES.rules.write(s, { rules: [rule] }, context())).rejects.toMatchObject({
      extra: { param: 'rules.0.actions.0.value' },
    });
  });

  it('give a new webhook URL a secret shown once, keep a secret the write brings, rotate on request', async () => {
    const s = await store();
    const url = 'https://hooks.example/t';
    const modules = (secret?: string) => ({
      modules: [{ name: 'webhooks', enabled: true, settings: { url, ...(secret ? { secret } : {}) } }],
    });
    const first = await CONFIG_RESOURCES.modules.write(s, modules(), context());
    expect(first.created).toEqual([{ url, secret: expect.stringMatching(/^whsec_/) }]);
    expect(JSON.stringify(CONFIG_RESOURCES.modules.read(first.data))).not.toContain(first.created[0]!.secret);
    const own = await CONFIG_RESOURCES.modules.write(s, modules('a-secret-of-my-own'), context());
    expect(own.created).toEqual([]);
    expect(s.get().webhook_secrets).toEqual([{ url, secret: 'a-secret-of-my-own' }]);
    const rotated = await setWebhookSecret(s, { url });
    expect(rotated.created[0]!.secret).not.toBe('a-secret-of-my-own');
    expect(s.get().webhook_secrets[0]!.secret).toBe(rotated.created[0]!.secret);
  });
});

describe('agents and articles', () => {
  it('keep emails unique regardless of case, and a stored password when a write leaves it out', async () => {
    const s = await store();
    const at = new Date('2026-01-05T10:00:00Z');
    const input = { name: 'Ada', email: 'ada@shop.example', role: 'agent' as const, active: true };
    const { agent } = await upsertAgent(s, { ...input, password: 'long enough password' }, at);
    expect(agent.password_hash).toMatch(/^scrypt\$/);
    await expect(upsertAgent(s, { ...input, email: 'ADA@shop.example' }, at)).rejects.toMatchObject({
      extra: { param: 'email' },
    });
    const { agent: renamed, created } = await upsertAgent(s, { ...input, id: agent.id, name: 'Ada L.' }, at);
    expect(created).toBe(false);
    expect(renamed.password_hash).toBe(agent.password_hash);
    await expect(upsertAgent(s, { ...input, id: 'agt_unknown' }, at)).rejects.toMatchObject({
      code: 'agent_not_found',
    });
  });

  it('create, update and remove articles, 404 for unknown ones', async () => {
    const s = await store();
    const { article } = await upsertArticle(s, { title: 'Refunds', body: '', published: false }, new Date(1000));
    const { article: updated } = await upsertArticle(
      s,
      { id: article.id, title: 'Refunds', body: 'Open your order.', published: true },
      new Date(2000),
    );
    expect(updated).toMatchObject({ created_at: article.created_at, updated_at: new Date(2000).toISOString() });
    await removeArticle(s, article.id);
    await expect(removeArticle(s, article.id)).rejects.toMatchObject({ code: 'article_not_found' });
  });
});
