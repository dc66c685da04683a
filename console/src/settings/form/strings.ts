const en = {
  title: 'Form',
  intro: 'What the widget asks a customer who files a ticket.',
  requireCategory: 'Require a category',
  requireCategoryHint: 'The customer must pick one of the categories below before sending.',
  showPageUrl: 'Send the page address with the ticket',
  showPageUrlHint: 'You see on which page of your site the customer was.',
  allowAttachments: 'Customers may attach files',
  privacyNotice: 'Privacy notice',
  privacyNoticeHint: 'Shown under the form; leave empty for none.',
};
const de: Partial<typeof en> = {
  title: 'Formular',
  intro: 'Was das Widget Kunden fragt, die ein Ticket anlegen.',
  requireCategory: 'Kategorie verlangen',
  requireCategoryHint: 'Kunden müssen vor dem Senden eine der Kategorien unten wählen.',
  showPageUrl: 'Seitenadresse mit dem Ticket senden',
  showPageUrlHint: 'Sie sehen, auf welcher Seite Ihrer Website der Kunde war.',
  allowAttachments: 'Kunden dürfen Dateien anhängen',
  privacyNotice: 'Datenschutzhinweis',
  privacyNoticeHint: 'Wird unter dem Formular gezeigt; leer lassen für keinen.',
};
export const formStrings = { en, de };
