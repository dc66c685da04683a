import type { ConfigStore } from '../store/config-store.js';
import { newId } from '../model/index.js';

const ARTICLES = [
  {
    title: 'How do refunds work?',
    body: 'Open your order and choose **Refund**. We pay back within *5 working days*.\n\n- Unused teapots: full refund\n- Damaged in transit: full refund and a new teapot\n\nSee our [refund policy](https://example.com/refunds).',
    category: 'Orders and delivery',
    translations: {},
  },
  {
    title: 'Shipping times',
    body: 'We ship within **2 days** from Berlin. Germany: 1-2 days, EU: 3-5 days.\n\nTrack your parcel with the number in your shipping mail.',
    category: 'Orders and delivery',
    translations: {
      de: {
        title: 'Lieferzeiten',
        body: 'Wir versenden innerhalb von **2 Tagen** aus Berlin. Deutschland: 1-2 Tage, EU: 3-5 Tage.\n\nVerfolgen Sie Ihr Paket mit der Nummer aus Ihrer Versandmail.',
      },
    },
  },
  {
    title: 'Caring for a stoneware teapot',
    body: 'Rinse with hot water only; no dishwasher.\n\n1. Empty and rinse after use\n2. Dry upside down\n3. Never use soap inside: it flavours the tea',
    category: 'Teapot care',
    translations: {},
  },
  {
    title: 'My teapot leaks',
    body: 'A drop at the spout is normal for hand-made pots. If it leaks at the base, send us a photo in a ticket and we replace it.',
    category: 'Teapot care',
    translations: {},
  },
];

/** What a fresh demo starts with: a shop's categories with custom fields, articles, hours and a design. */
export async function seedDemo(config: ConfigStore, now: Date) {
  const at = now.toISOString();
  await config.update((d) => {
    d.portal.name = 'Teapot Shop';
    d.categories = [
      {
        id: 'orders',
        name: 'Orders and delivery',
        fields: [
          { id: 'order_number', label: 'Order number', type: 'number', required: true, placeholder: 'e.g. 10042' },
          { id: 'delivery', label: 'Delivery', type: 'select', required: false, options: ['Standard', 'Express'] },
        ],
      },
      {
        id: 'returns',
        name: 'Returns',
        fields: [
          {
            id: 'reason',
            label: 'Reason',
            type: 'select',
            required: true,
            options: ['Damaged', 'Wrong item', 'Changed my mind'],
          },
        ],
      },
      { id: 'general', name: 'Something else', fields: [] },
    ];
    d.kb = ARTICLES.map((a) => ({ id: newId('art'), ...a, published: true, created_at: at, updated_at: at }));
    d.business_hours = {
      timezone: 'Europe/Berlin',
      days: {
        mon: [{ open: '08:00', close: '20:00' }],
        tue: [{ open: '08:00', close: '20:00' }],
        wed: [{ open: '08:00', close: '20:00' }],
        thu: [{ open: '08:00', close: '20:00' }],
        fri: [{ open: '08:00', close: '18:00' }],
        sat: [{ open: '10:00', close: '14:00' }],
        sun: [],
      },
      holidays: ['2026-12-25', '2026-12-26', '2027-01-01'],
    };
    d.design = {
      ...d.design,
      title: 'Teapot Shop Support',
      greeting: 'Hi! Questions about your teapot?',
      primary_color: '#c2410c',
    };
    d.macros = [
      {
        id: 'shipped',
        name: 'Shipped',
        message: 'Hi {{name}}, your order for "{{subject}}" is on its way!',
        status: 'answered',
      },
    ];
  });
}
