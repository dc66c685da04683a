import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { axeFindings, makeAgent, openConsole, signIn, startStack, type Stack } from './harness.js';

// The knowledge base editor (issue 31): an admin gives an article its category and a translation per
// language (a tab each: title, body, the category's name there), sees a refused field's message beside
// it, and a French customer then reads the translation. An agent (role `agent`) is told the screen is
// for admins, and the console asks the server for nothing it refuses.

describe('settings: the knowledge base editor, per language', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack.close();
  });

  const stored = async (title: string) =>
    ((await stack.api.call('GET', '/admin?r=kb')).body.kb as Record<string, any>[]).find((a) => a.title === title);

  test('an admin edits the category and a French translation; a refused field says why beside it', async () => {
    const admin = await makeAgent(stack, { role: 'admin' });
    const made = await stack.api.call('POST', '/admin?r=kb', {
      json: {
        title: 'Sending an order back',
        body: 'Pack the parcel.',
        published: true,
        translations: { de: { title: 'Eine Bestellung zurückschicken', body: 'Packen Sie das Paket ein.' } },
      },
    });
    const id = made.body.article.id as string;
    const { page, errors, close } = await openConsole(stack, '/console/settings/kb');
    try {
      await signIn(page, admin);
      await page.getByRole('button', { name: 'Sending an order back', exact: true }).click();
      await page.getByLabel('Category', { exact: true }).fill('Orders');
      const tabs = page.getByRole('tablist', { name: 'Languages' });
      await tabs.getByRole('tab', { name: 'Translation FR' }).click();
      const panel = page.getByRole('tabpanel');
      // A body without a title: refused, and the message shows beside the French title.
      await panel.getByLabel('Text (Markdown)').fill('Emballez le **colis**.');
      await tabs.getByRole('tab', { name: 'As written' }).click();
      await page.getByRole('button', { name: 'Save' }).click();
      const title = page.locator('#kb-fr-title');
      await expect.poll(() => title.getAttribute('aria-invalid')).toBe('true');
      expect(await tabs.getByRole('tab', { name: 'Translation FR' }).getAttribute('aria-selected')).toBe('true');
      const described = (await title.getAttribute('aria-describedby'))!.split(' ');
      const messages = await Promise.all(described.map((d) => page.locator(`#${d}`).textContent()));
      expect(messages.join(' ')).toMatch(/\S/);
      expect((await stored('Sending an order back'))!.translations.fr).toBeUndefined();

      await title.fill('Renvoyer une commande');
      await panel.getByLabel('Category in this language (empty: as written)').fill('Commandes');
      await panel.getByRole('region', { name: 'Preview' }).locator('strong', { hasText: 'colis' }).waitFor();
      await page.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('status').getByText('Saved').waitFor();
      const article = await stored('Sending an order back');
      expect(article).toMatchObject({
        id,
        category: 'Orders',
        translations: {
          fr: { title: 'Renvoyer une commande', body: 'Emballez le **colis**.', category: 'Commandes' },
          // The German translation, never opened here, is kept.
          de: { title: 'Eine Bestellung zurückschicken', body: 'Packen Sie das Paket ein.' },
        },
      });
      // Unpublishing from the list keeps category and translations.
      await page
        .getByRole('navigation', { name: 'Articles' })
        .getByRole('button', { name: 'Unpublish: Sending an order back' })
        .click();
      await expect.poll(async () => (await stored('Sending an order back'))?.published).toBe(false);
      expect(await stored('Sending an order back')).toMatchObject({
        category: 'Orders',
        translations: article!.translations,
      });
      await stack.api.call('POST', '/admin?r=kb', { json: { ...article, published: true } });
      // A French customer reads the translation.
      const fr = await stack.api.call('GET', `/kb?id=${id}`, {
        key: stack.api.keys.pk,
        headers: { 'Accept-Language': 'fr' },
      });
      expect(fr.body).toMatchObject({ title: 'Renvoyer une commande', category: 'Commandes', lang: 'fr' });
      expect(await axeFindings(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });

  test('an agent is told the screen is for admins, and no request of theirs is refused', async () => {
    const agent = await makeAgent(stack, { role: 'agent' });
    const { page, errors, close } = await openConsole(stack, '/console/settings/kb');
    const refused: string[] = [];
    page.on('response', (r) => {
      if (r.status() >= 400 && r.status() < 500 && !r.url().endsWith('/v1/session'))
        refused.push(`${r.status()} ${r.url()}`);
    });
    try {
      await signIn(page, agent);
      await page.getByText('Only an admin can change settings.').waitFor();
      expect(await page.getByRole('tablist', { name: 'Languages' }).count()).toBe(0);
      await page.waitForTimeout(500);
      expect(refused).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await close();
    }
  });
});
