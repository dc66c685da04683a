const en = {
  title: 'Statuses',
  intro:
    'The stages a ticket goes through, in this order; a new ticket takes the first. Closed statuses end the conversation (a customer’s reply reopens it).',
  status: 'Status',
  addStatus: 'Add a status',
  name: 'Name',
  id: 'Id',
  idHint: 'Lower-case letters, digits, - and _; used by rules and the API. Made from the name for a new row.',
  color: 'Colour',
  closed: 'Counts as closed',
  looks: 'In the inbox:',
  keptBack: 'This status was put back: it cannot be removed while it is in use.',
  tickets: '{n} ticket(s) still have this status. Move them to another status first (filter the inbox by it).',
  usedBy: 'Still named by: {what}. Change those settings first.',
  priorities: 'Priorities',
  prioritiesIntro: 'Fixed by the product: every ticket has one of these four. Rules and macros can set them.',
  tags: 'Tags',
  tagsIntro:
    'Labels agents put on tickets. A colour makes a tag easy to spot in the inbox; tags not listed here are grey.',
  saveTags: 'Save tags',
  tag: 'Tag',
  addTag: 'Add a tag',
  tagName: 'Name',
};
const de: Partial<typeof en> = {
  title: 'Status',
  intro:
    'Die Stufen, die ein Ticket durchläuft, in dieser Reihenfolge; ein neues Ticket erhält die erste. Geschlossene Status beenden das Gespräch (eine Kundenantwort öffnet es wieder).',
  status: 'Status',
  addStatus: 'Status hinzufügen',
  name: 'Name',
  id: 'Kennung',
  idHint:
    'Kleinbuchstaben, Ziffern, - und _; Regeln und die API verwenden sie. Bei neuen Zeilen aus dem Namen gebildet.',
  color: 'Farbe',
  closed: 'Gilt als geschlossen',
  looks: 'Im Posteingang:',
  keptBack: 'Dieser Status wurde zurückgeholt: Er kann nicht entfernt werden, solange er verwendet wird.',
  tickets:
    '{n} Ticket(s) haben noch diesen Status. Verschieben Sie sie zuerst in einen anderen Status (Posteingang danach filtern).',
  usedBy: 'Noch verwendet von: {what}. Ändern Sie zuerst diese Einstellungen.',
  priorities: 'Prioritäten',
  prioritiesIntro:
    'Vom Produkt festgelegt: Jedes Ticket hat eine dieser vier. Regeln und Textbausteine können sie setzen.',
  tags: 'Tags',
  tagsIntro:
    'Schlagwörter, die Mitarbeitende an Tickets hängen. Eine Farbe macht ein Tag im Posteingang leicht erkennbar; nicht aufgeführte Tags sind grau.',
  saveTags: 'Tags speichern',
  tag: 'Tag',
  addTag: 'Tag hinzufügen',
  tagName: 'Name',
};
export const statusStrings = { en, de };
