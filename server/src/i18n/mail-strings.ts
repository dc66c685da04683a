import { CUSTOMER_LOCALES, type CustomerLocale } from './locales.js';

/** The words of the mails the server writes to customers (not the admin's own autoreply text). */
export interface CustomerMailStrings {
  receivedSubject: string;
  hi: string;
  received: string;
  replied: string;
  support: string;
  view: string;
  /** A line naming the ticket's number, under an autoreply text that does not. */
  number: string;
}

// {subject}, {name}, {id}, {number} (both #1042) and {author} are filled in by mail/templates.ts.
const STRINGS: Record<CustomerLocale, CustomerMailStrings> = {
  en: {
    receivedSubject: 'We received your request: {subject}',
    hi: 'Hi {name},',
    received: 'thank you for writing. Your ticket number is {id}; we will answer as soon as we can.',
    replied: '{author} replied to your ticket {number}:',
    support: 'Support',
    view: 'View your ticket',
    number: 'Your ticket number: {number}',
  },
  de: {
    receivedSubject: 'Wir haben Ihre Anfrage erhalten: {subject}',
    hi: 'Hallo {name},',
    received: 'vielen Dank für Ihre Nachricht. Ihre Anfragenummer ist {id}; wir antworten so bald wie möglich.',
    replied: '{author} hat auf Ihre Anfrage {number} geantwortet:',
    support: 'Kundendienst',
    view: 'Ihre Anfrage ansehen',
    number: 'Ihre Anfragenummer: {number}',
  },
  fr: {
    receivedSubject: 'Nous avons bien reçu votre demande : {subject}',
    hi: 'Bonjour {name},',
    received: 'merci pour votre message. Votre numéro de demande est {id} ; nous vous répondrons dès que possible.',
    replied: '{author} a répondu à votre demande {number} :',
    support: 'L’assistance',
    view: 'Voir votre demande',
    number: 'Votre numéro de demande : {number}',
  },
  es: {
    receivedSubject: 'Hemos recibido su consulta: {subject}',
    hi: 'Hola, {name}:',
    received: 'gracias por escribirnos. El número de su consulta es {id}; le responderemos lo antes posible.',
    replied: '{author} respondió a su consulta {number}:',
    support: 'Soporte',
    view: 'Ver su consulta',
    number: 'El número de su consulta: {number}',
  },
  ar: {
    receivedSubject: 'تلقّينا طلبك: {subject}',
    hi: 'مرحبًا {name}،',
    received: 'شكرًا لتواصلك معنا. رقم طلبك هو {id}؛ سنرد عليك في أقرب وقت ممكن.',
    replied: 'رد {author} على طلبك {number}:',
    support: 'فريق الدعم',
    view: 'عرض طلبك',
    number: 'رقم طلبك: {number}',
  },
};

/** The mail words for a ticket's stored locale (English when it has none or one we do not know). */
export const customerMailStrings = (locale: string | undefined): CustomerMailStrings =>
  STRINGS[(CUSTOMER_LOCALES as readonly string[]).includes(locale ?? '') ? (locale as CustomerLocale) : 'en'];
