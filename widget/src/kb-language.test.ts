import { fireEvent } from '@testing-library/preact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { $, byText, mountWidget, server, support, type, until, type TestServer } from './test-support/widget.js';

// A French page (<html lang="fr">): the widget's knowledge base lists, searches and shows the articles
// in French where they have a French translation, as the server answers its Accept-Language.

let s: TestServer;
beforeAll(async () => {
  s = await server();
  await support(s, 'POST', '/admin?r=kb', {
    title: 'Sending an order back',
    body: 'Pack the parcel and print the label.',
    published: true,
    translations: {
      fr: { title: 'Renvoyer une commande', body: 'Emballez le colis et imprimez l’**étiquette de retour**.' },
    },
  });
  await support(s, 'POST', '/admin?r=kb', {
    title: 'Retour labels for Belgium',
    body: 'Belgian customers use the bpost label.',
    published: true,
  });
});
afterAll(() => s.close());

describe('the knowledge base on a French page', () => {
  it('lists, finds and shows the French translation first', async () => {
    document.documentElement.lang = 'fr';
    const w = mountWidget(s, { open: true });
    try {
      const root = await until(() => $(w.root, '[role="dialog"]') && w.root);
      // The home view's list, before anything is typed.
      await until(() => byText(root, '.item', /^Renvoyer une commande/));
      type($(root, '#tk-q'), 'retour');
      // The results, once they are in: the matched words are marked (the home list has no marks).
      await until(() => $(root, '.item mark'));
      const hits = [...root.querySelectorAll('.item')].map((b) => b.textContent ?? '');
      expect(hits[0]).toMatch(/^Renvoyer une commande/);
      expect(hits[1]).toMatch(/^Retour labels for Belgium/);
      expect($(root, '.item small mark').textContent).toBe('retour');
      fireEvent.click(byText(root, '.item', /^Renvoyer une commande/));
      await until(() => byText(root, 'h3', 'Renvoyer une commande'));
      expect(byText(root, 'strong', 'étiquette de retour')).toBeTruthy();
      expect(byText(root, 'p', 'Cet article vous a-t-il aidé ?')).toBeTruthy();
    } finally {
      w.handle.destroy();
      document.documentElement.lang = '';
    }
  });
});
