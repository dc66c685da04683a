import type { Response } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeAgent, openConsole, signIn, SHOTS, startStack, type Stack } from './harness.js';

// The `assignment` and `workflow` settings had no screen (issue 30): an admin switches round robin on in
// the console, and new tickets land with the chosen agents in turn; a refused list shows its error beside
// the agents; the status a reply sets is chosen on the same screen. Each checked through /admin.

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.close());

const newTicket = async (subject: string) => {
  const res = await stack.api.call('POST', '/create', {
    key: stack.api.keys.pk,
    json: { name: 'Ada', email: 'ada@example.com', subject, message: 'Where is it?' },
  });
  expect(res.status).toBe(201);
  return res.body.agent_id ?? (await stack.api.call('GET', `/ticket?id=${res.body.id}`)).body.agent_id;
};

describe('settings: assignment and reply status', () => {
  it('switching round robin on makes new tickets land with the chosen agents in turn', async () => {
    const admin = await makeAgent(stack, { name: 'Ada Admin', role: 'admin' });
    const grace = await makeAgent(stack, { name: 'Grace Agent', role: 'agent' });
    const linus = await makeAgent(stack, { name: 'Linus Agent', role: 'agent' });
    const gone = await makeAgent(stack, { name: 'Zed Leaving', role: 'agent' });
    expect(await newTicket('Before')).toBeNull(); // off by default

    const { page, errors, close } = await openConsole(stack, '/console/settings/assignment');
    await page.getByLabel('Email').waitFor(); // signed out: the console's own 401 for /session comes first
    const refused: string[] = [];
    page.on('response', (r: Response) => {
      if (r.status() >= 400) refused.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
    });
    await signIn(page, admin);
    await page.getByRole('heading', { name: 'Assignment', exact: true }).waitFor();
    await page.getByLabel('New tickets').selectOption('round_robin');
    for (const name of ['Grace Agent', 'Linus Agent', 'Zed Leaving']) await page.getByLabel(name).check();

    // Zed leaves while the screen is open: the server refuses the list, and says so beside the agents.
    expect((await stack.api.call('DELETE', `/admin?r=agents&id=${gone.id}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const err = page.locator('#assignment-agents-err');
    await err.waitFor();
    expect(await err.textContent()).toContain('no longer exists');
    expect(await page.getByLabel('Zed Leaving').getAttribute('aria-invalid')).toBe('true');
    expect((await stack.api.call('GET', '/admin?r=assignment')).body.assignment.mode).toBe('off');

    await page.getByLabel('Zed Leaving').uncheck();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved', { exact: true }).first().waitFor();
    expect(await err.count()).toBe(0);
    expect((await stack.api.call('GET', '/admin?r=assignment')).body.assignment).toEqual({
      mode: 'round_robin',
      agents: [grace.id, linus.id],
    });
    // New tickets: Grace, Linus, Grace again.
    expect([await newTicket('One'), await newTicket('Two'), await newTicket('Three')]).toEqual([
      grace.id,
      linus.id,
      grace.id,
    ]);

    // The status a reply sets: "keep" is null in r=workflow.
    expect(await page.getByLabel('A reply sets the status').inputValue()).toBe('pending');
    await page.getByLabel('A reply sets the status').selectOption({ label: 'keep the status as it is' });
    await page.getByRole('button', { name: 'Save reply status' }).click();
    await expect
      .poll(async () => (await stack.api.call('GET', '/admin?r=workflow')).body.workflow.reply_status)
      .toBeNull();

    // After a reload the screen shows what is stored.
    await page.reload();
    await page.getByRole('heading', { name: 'Assignment', exact: true }).waitFor();
    expect(await page.getByLabel('New tickets').inputValue()).toBe('round_robin');
    expect(await page.getByLabel('Grace Agent').isChecked()).toBe(true);
    expect(await page.getByLabel('A reply sets the status').inputValue()).toBe(':keep');
    await page.screenshot({ path: `${SHOTS}settings-assignment.png`, fullPage: true });
    // The one refusal is the save the server refused on purpose.
    expect(refused).toEqual(['400 POST /v1/admin']);
    expect(errors).toEqual([]);
    await close();
  });
});
