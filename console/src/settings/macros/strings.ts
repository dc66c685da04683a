const en = {
  title: 'Macros',
  intro:
    'Ready answers agents insert with one click. {{name}}, {{subject}}, {{number}} (#1042) and {{ticket_id}} are filled in from the ticket; a macro can also set the status or priority.',
  macro: 'Macro',
  addMacro: 'Add a macro',
  name: 'Name',
  id: 'Id',
  message: 'Message',
  status: 'Then set the status',
  priority: 'Then set the priority',
  keep: 'Leave as it is',
  preview: 'What the customer reads (sample ticket):',
  unknown: 'Not a placeholder, sent as written: {list}',
  none: 'No macros yet.',
  sampleName: 'Ada Lovelace',
  sampleSubject: 'Where is my order?',
};
const de: Partial<typeof en> = {
  title: 'Textbausteine',
  intro:
    'Fertige Antworten, die Mitarbeitende mit einem Klick einfügen. {{name}}, {{subject}}, {{number}} (#1042) und {{ticket_id}} werden aus dem Ticket gefüllt; ein Baustein kann auch Status oder Priorität setzen.',
  macro: 'Textbaustein',
  addMacro: 'Textbaustein hinzufügen',
  name: 'Name',
  id: 'Kennung',
  message: 'Nachricht',
  status: 'Danach Status setzen',
  priority: 'Danach Priorität setzen',
  keep: 'Unverändert lassen',
  preview: 'Was Kunden lesen (Beispielticket):',
  unknown: 'Kein Platzhalter, wird so gesendet: {list}',
  none: 'Noch keine Textbausteine.',
  sampleName: 'Erika Mustermann',
  sampleSubject: 'Wo ist meine Bestellung?',
};
export const macroStrings = { en, de };
