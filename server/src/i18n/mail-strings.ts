import { CUSTOMER_LOCALES, type CustomerLocale } from './locales.js';

/** The words of the mails the server writes to customers (not the admin's own autoreply text). */
export interface CustomerMailStrings {
  receivedSubject: string;
  hi: string;
  received: string;
  replied: string;
  support: string;
  view: string;
}

// {subject}, {name}, {id} and {author} are filled in by mail/templates.ts.
const STRINGS: Record<CustomerLocale, CustomerMailStrings> = {
  en: {
    receivedSubject: 'We received your request: {subject}',
    hi: 'Hi {name},',
    received: 'thank you for writing. Your ticket number is {id}; we will answer as soon as we can.',
    replied: '{author} replied to your ticket:',
    support: 'Support',
    view: 'View your ticket',
  },
  de: {
    receivedSubject: 'Wir haben Ihre Anfrage erhalten: {subject}',
    hi: 'Hallo {name},',
    received: 'vielen Dank für Ihre Nachricht. Ihre Anfragenummer ist {id}; wir antworten so bald wie möglich.',
    replied: '{author} hat auf Ihre Anfrage geantwortet:',
    support: 'Kundendienst',
    view: 'Ihre Anfrage ansehen',
  },
  fr: {
    receivedSubject: 'Nous avons bien reçu votre demande : {subject}',
    hi: 'Bonjour {name},',
    received: 'merci pour votre message. Votre numéro de demande est {id} ; nous vous répondrons dès que possible.',
    replied: '{author} a répondu à votre demande :',
    support: 'L’assistance',
    view: 'Voir votre demande',
  },
  es: {
    receivedSubject: 'Hemos recibido su consulta: {subject}',
    hi: 'Hola, {name}:',
    received: 'gracias por escribirnos. El número de su consulta es {id}; le responderemos lo antes posible.',
    replied: '{author} respondió a su consulta:',
    support: 'Soporte',
    view: 'Ver su consulta',
  },
  ar: {
    receivedSubject: 'تلقّينا طلبك: {subject}',
    hi: 'مرحبًا {name}،',
    received: 'شكرًا لتواصلك معنا. رقم طلبك هو {id}؛ سنرد عليك في أقرب وقت ممكن.',
    replied: 'رد {author} على طلبك:',
    support: 'فريق الدعم',
    view: 'عرض طلبك',
  },
};

/** The mail words for a ticket's stored locale (English when it has none or one we do not know). */
export const customerMailStrings = (locale: string | undefined): CustomerMailStrings =>
  STRINGS[(CUSTOMER_LOCALES as readonly string[]).includes(locale ?? '') ? (locale as CustomerLocale) : 'en'];
