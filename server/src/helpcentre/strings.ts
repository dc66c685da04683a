import type { CustomerLocale } from '../i18n/locales.js';

/** The help centre's own words, in every language the widget speaks. */
export interface HelpStrings {
  helpCentre: string;
  searchLabel: string;
  searchButton: string;
  searchResults: (q: string) => string;
  noResults: string;
  noArticles: string;
  general: string;
  popular: string;
  helpful: string;
  yes: string;
  no: string;
  thanks: string;
  stillNeedHelp: string;
  writeToUs: string;
  backToAll: string;
  updated: string;
  languages: string;
  notFound: string;
  notFoundText: string;
  tooMany: string;
}

export const HELP_STRINGS: Record<CustomerLocale, HelpStrings> = {
  en: {
    helpCentre: 'Help centre',
    searchLabel: 'Search the help centre',
    searchButton: 'Search',
    searchResults: (q) => `Results for “${q}”`,
    noResults: 'No article matches your search.',
    noArticles: 'There are no articles yet.',
    general: 'General',
    popular: 'Popular articles',
    helpful: 'Was this helpful?',
    yes: 'Yes',
    no: 'No',
    thanks: 'Thank you for your feedback.',
    stillNeedHelp: 'Still need help?',
    writeToUs: 'Write to us',
    backToAll: 'All articles',
    updated: 'Updated',
    languages: 'Languages',
    notFound: 'Page not found',
    notFoundText: 'This article does not exist or is no longer published.',
    tooMany: 'Too many answers from your network: please try again later.',
  },
  de: {
    helpCentre: 'Hilfe-Center',
    searchLabel: 'Im Hilfe-Center suchen',
    searchButton: 'Suchen',
    searchResults: (q) => `Ergebnisse für „${q}“`,
    noResults: 'Kein Artikel passt zu Ihrer Suche.',
    noArticles: 'Noch keine Artikel.',
    general: 'Allgemein',
    popular: 'Beliebte Artikel',
    helpful: 'War das hilfreich?',
    yes: 'Ja',
    no: 'Nein',
    thanks: 'Danke für Ihre Rückmeldung.',
    stillNeedHelp: 'Brauchen Sie weitere Hilfe?',
    writeToUs: 'Schreiben Sie uns',
    backToAll: 'Alle Artikel',
    updated: 'Aktualisiert',
    languages: 'Sprachen',
    notFound: 'Seite nicht gefunden',
    notFoundText: 'Diesen Artikel gibt es nicht oder er ist nicht mehr veröffentlicht.',
    tooMany: 'Zu viele Antworten aus Ihrem Netz: bitte versuchen Sie es später noch einmal.',
  },
  fr: {
    helpCentre: 'Centre d’aide',
    searchLabel: 'Rechercher dans le centre d’aide',
    searchButton: 'Rechercher',
    searchResults: (q) => `Résultats pour « ${q} »`,
    noResults: 'Aucun article ne correspond à votre recherche.',
    noArticles: 'Il n’y a pas encore d’articles.',
    general: 'Général',
    popular: 'Articles populaires',
    helpful: 'Cet article vous a-t-il aidé ?',
    yes: 'Oui',
    no: 'Non',
    thanks: 'Merci pour votre avis.',
    stillNeedHelp: 'Besoin d’aide supplémentaire ?',
    writeToUs: 'Écrivez-nous',
    backToAll: 'Tous les articles',
    updated: 'Mis à jour',
    languages: 'Langues',
    notFound: 'Page introuvable',
    notFoundText: 'Cet article n’existe pas ou n’est plus publié.',
    tooMany: 'Trop de réponses depuis votre réseau : veuillez réessayer plus tard.',
  },
  es: {
    helpCentre: 'Centro de ayuda',
    searchLabel: 'Buscar en el centro de ayuda',
    searchButton: 'Buscar',
    searchResults: (q) => `Resultados para «${q}»`,
    noResults: 'Ningún artículo coincide con su búsqueda.',
    noArticles: 'Todavía no hay artículos.',
    general: 'General',
    popular: 'Artículos populares',
    helpful: '¿Le ha resultado útil?',
    yes: 'Sí',
    no: 'No',
    thanks: 'Gracias por su opinión.',
    stillNeedHelp: '¿Necesita más ayuda?',
    writeToUs: 'Escríbanos',
    backToAll: 'Todos los artículos',
    updated: 'Actualizado',
    languages: 'Idiomas',
    notFound: 'Página no encontrada',
    notFoundText: 'Este artículo no existe o ya no está publicado.',
    tooMany: 'Demasiadas respuestas desde su red: inténtelo de nuevo más tarde.',
  },
  ar: {
    helpCentre: 'مركز المساعدة',
    searchLabel: 'ابحث في مركز المساعدة',
    searchButton: 'بحث',
    searchResults: (q) => `نتائج البحث عن «${q}»`,
    noResults: 'لا توجد مقالة تطابق بحثك.',
    noArticles: 'لا توجد مقالات بعد.',
    general: 'عام',
    popular: 'المقالات الشائعة',
    helpful: 'هل كان هذا مفيدًا؟',
    yes: 'نعم',
    no: 'لا',
    thanks: 'شكرًا على ملاحظاتك.',
    stillNeedHelp: 'هل ما زلت بحاجة إلى مساعدة؟',
    writeToUs: 'راسلنا',
    backToAll: 'كل المقالات',
    updated: 'آخر تحديث',
    languages: 'اللغات',
    notFound: 'الصفحة غير موجودة',
    notFoundText: 'هذه المقالة غير موجودة أو لم تعد منشورة.',
    tooMany: 'إجابات كثيرة جدًا من شبكتك: يرجى المحاولة لاحقًا.',
  },
};

/** Each language named in itself, for the language links. */
export const LANGUAGE_NAMES: Record<CustomerLocale, string> = {
  en: 'English',
  de: 'Deutsch',
  fr: 'Français',
  es: 'Español',
  ar: 'العربية',
};
