import type { CustomerLocale } from './locales.js';

type Table = Record<string, string>;
/** An error's detail (http/errors.ts ErrorDetail; repeated here so that i18n/ imports nothing of http/). */
interface ErrorDetail {
  param: string;
  message: string;
}

// What a customer may meet, in their language. Codes missing here keep the English message (support's
// errors: a public key never gets them). {max} is filled from the English detail, other {names} from the
// error's values.
const MESSAGES: Record<Exclude<CustomerLocale, 'en'>, Table> = {
  de: {
    validation_failed: 'Bitte prüfen Sie die Eingaben.',
    invalid_json: 'Die Anfrage ist kein gültiges JSON.',
    missing_api_key: 'Der API-Schlüssel fehlt.',
    invalid_api_key: 'Dieser API-Schlüssel ist ungültig oder wurde widerrufen.',
    origin_not_allowed: 'Dieser Schlüssel darf auf dieser Website ({origin}) nicht verwendet werden.',
    identity_required: 'Dafür muss die Website Ihre Identität bestätigt haben.',
    secret_key_required: 'Das ist nur für den Kundendienst möglich.',
    blocked: 'Diese Anfrage wurde abgelehnt.',
    module_disabled: 'Diese Funktion ist ausgeschaltet.',
    captcha_failed: 'Die Sicherheitsprüfung ist fehlgeschlagen. Bitte versuchen Sie es erneut.',
    ticket_not_found: 'Diese Anfrage wurde nicht gefunden.',
    file_not_found: 'Diese Datei wurde nicht gefunden.',
    article_not_found: 'Dieser Artikel wurde nicht gefunden.',
    not_found: 'Diese Adresse gibt es nicht.',
    method_not_allowed: 'Diese Aktion ist hier nicht möglich.',
    idempotency_key_reused: 'Diese Anfrage wurde schon mit anderem Inhalt gesendet.',
    ticket_closed: 'Diese Anfrage ist bereits geschlossen.',
    payload_too_large: 'Die Anfrage ist zu groß.',
    file_too_large: 'Die Datei ist größer als 5 MB.',
    ticket_quota_exceeded: 'Diese Anfrage hat schon so viele Dateien, wie sie haben darf.',
    unsupported_file_type: 'Diese Art von Datei kann nicht angehängt werden.',
    unsupported_media_type: 'Dieses Format wird nicht angenommen.',
    rate_limited: 'Zu viele Anfragen. Bitte warten Sie einen Moment.',
    upload_quota_exceeded: 'Zu viele Dateien in kurzer Zeit. Bitte versuchen Sie es später erneut.',
    unavailable: 'Der Dienst ist gerade nicht verfügbar. Bitte versuchen Sie es gleich noch einmal.',
    internal_error: 'Etwas ist schiefgelaufen. Bitte versuchen Sie es erneut.',
    'detail.required': 'ist erforderlich',
    'detail.too_long': 'ist zu lang (höchstens {max} Zeichen)',
    'detail.email': 'ist keine gültige E-Mail-Adresse',
    'detail.invalid': 'ist ungültig',
  },
  fr: {
    validation_failed: 'Veuillez vérifier les champs.',
    invalid_json: 'La requête n’est pas du JSON valide.',
    missing_api_key: 'La clé d’API manque.',
    invalid_api_key: 'Cette clé d’API n’est pas valide ou a été révoquée.',
    origin_not_allowed: 'Cette clé ne peut pas être utilisée sur ce site ({origin}).',
    identity_required: 'Le site doit d’abord avoir confirmé votre identité.',
    secret_key_required: 'Seule l’assistance peut faire cela.',
    blocked: 'Cette demande a été refusée.',
    module_disabled: 'Cette fonction est désactivée.',
    captcha_failed: 'La vérification de sécurité a échoué. Veuillez réessayer.',
    ticket_not_found: 'Cette demande est introuvable.',
    file_not_found: 'Ce fichier est introuvable.',
    article_not_found: 'Cet article est introuvable.',
    not_found: 'Cette adresse n’existe pas.',
    method_not_allowed: 'Cette action n’est pas possible ici.',
    idempotency_key_reused: 'Cette demande a déjà été envoyée avec un autre contenu.',
    ticket_closed: 'Cette demande est déjà fermée.',
    payload_too_large: 'La requête est trop volumineuse.',
    file_too_large: 'Le fichier dépasse 5 Mo.',
    ticket_quota_exceeded: 'Cette demande a déjà autant de fichiers qu’elle peut en avoir.',
    unsupported_file_type: 'Ce type de fichier ne peut pas être joint.',
    unsupported_media_type: 'Ce format n’est pas accepté.',
    rate_limited: 'Trop de requêtes. Veuillez patienter un instant.',
    upload_quota_exceeded: 'Trop de fichiers en peu de temps. Veuillez réessayer plus tard.',
    unavailable: 'Le service est momentanément indisponible. Veuillez réessayer dans un instant.',
    internal_error: 'Une erreur s’est produite. Veuillez réessayer.',
    'detail.required': 'est obligatoire',
    'detail.too_long': 'est trop long ({max} caractères au plus)',
    'detail.email': 'n’est pas une adresse e-mail valide',
    'detail.invalid': 'n’est pas valide',
  },
  es: {
    validation_failed: 'Revise los campos.',
    invalid_json: 'La solicitud no es JSON válido.',
    missing_api_key: 'Falta la clave de API.',
    invalid_api_key: 'Esta clave de API no es válida o fue revocada.',
    origin_not_allowed: 'Esta clave no se puede usar en este sitio ({origin}).',
    identity_required: 'Primero el sitio debe haber confirmado su identidad.',
    secret_key_required: 'Solo el equipo de soporte puede hacerlo.',
    blocked: 'Esta solicitud fue rechazada.',
    module_disabled: 'Esta función está desactivada.',
    captcha_failed: 'La comprobación de seguridad falló. Inténtelo de nuevo.',
    ticket_not_found: 'No se encontró esta consulta.',
    file_not_found: 'No se encontró este archivo.',
    article_not_found: 'No se encontró este artículo.',
    not_found: 'Esta dirección no existe.',
    method_not_allowed: 'Esta acción no es posible aquí.',
    idempotency_key_reused: 'Esta solicitud ya se envió con otro contenido.',
    ticket_closed: 'Esta consulta ya está cerrada.',
    payload_too_large: 'La solicitud es demasiado grande.',
    file_too_large: 'El archivo supera los 5 MB.',
    ticket_quota_exceeded: 'Esta consulta ya tiene tantos archivos como puede tener.',
    unsupported_file_type: 'Este tipo de archivo no se puede adjuntar.',
    unsupported_media_type: 'Este formato no se acepta.',
    rate_limited: 'Demasiadas solicitudes. Espere un momento.',
    upload_quota_exceeded: 'Demasiados archivos en poco tiempo. Inténtelo más tarde.',
    unavailable: 'El servicio no está disponible ahora. Inténtelo de nuevo en un momento.',
    internal_error: 'Algo salió mal. Inténtelo de nuevo.',
    'detail.required': 'es obligatorio',
    'detail.too_long': 'es demasiado largo (como máximo {max} caracteres)',
    'detail.email': 'no es una dirección de correo válida',
    'detail.invalid': 'no es válido',
  },
  ar: {
    validation_failed: 'يرجى التحقق من الحقول.',
    invalid_json: 'الطلب ليس JSON صالحًا.',
    missing_api_key: 'مفتاح API مفقود.',
    invalid_api_key: 'مفتاح API هذا غير صالح أو تم إلغاؤه.',
    origin_not_allowed: 'لا يمكن استخدام هذا المفتاح على هذا الموقع ({origin}).',
    identity_required: 'يجب أن يؤكد الموقع هويتك أولًا.',
    secret_key_required: 'يمكن لفريق الدعم فقط القيام بذلك.',
    blocked: 'تم رفض هذا الطلب.',
    module_disabled: 'هذه الميزة متوقفة.',
    captcha_failed: 'فشل التحقق الأمني. يرجى المحاولة مرة أخرى.',
    ticket_not_found: 'لم يتم العثور على هذا الطلب.',
    file_not_found: 'لم يتم العثور على هذا الملف.',
    article_not_found: 'لم يتم العثور على هذه المقالة.',
    not_found: 'هذا العنوان غير موجود.',
    method_not_allowed: 'هذا الإجراء غير ممكن هنا.',
    idempotency_key_reused: 'تم إرسال هذا الطلب من قبل بمحتوى مختلف.',
    ticket_closed: 'هذا الطلب مغلق بالفعل.',
    payload_too_large: 'الطلب كبير جدًا.',
    file_too_large: 'حجم الملف أكبر من 5 ميغابايت.',
    ticket_quota_exceeded: 'يحتوي هذا الطلب على أقصى عدد مسموح من الملفات.',
    unsupported_file_type: 'لا يمكن إرفاق هذا النوع من الملفات.',
    unsupported_media_type: 'هذا التنسيق غير مقبول.',
    rate_limited: 'طلبات كثيرة جدًا. يرجى الانتظار قليلًا.',
    upload_quota_exceeded: 'ملفات كثيرة في وقت قصير. يرجى المحاولة لاحقًا.',
    unavailable: 'الخدمة غير متاحة حاليًا. يرجى المحاولة بعد قليل.',
    internal_error: 'حدث خطأ ما. يرجى المحاولة مرة أخرى.',
    'detail.required': 'مطلوب',
    'detail.too_long': 'طويل جدًا (بحد أقصى {max} حرفًا)',
    'detail.email': 'ليس عنوان بريد إلكتروني صالحًا',
    'detail.invalid': 'غير صالح',
  },
};

/** An English detail (ours or zod's) as one of the few kinds a customer needs to tell apart. */
function detailKind(message: string): { key: string; max?: string } {
  if (/^is required|expected [a-z]+, received undefined|^Too small: expected string to have >=1 /i.test(message))
    return { key: 'detail.required' };
  const long = /^Too big: expected string to have <=(\d+)|at most (\d+) characters/i.exec(message);
  if (long) return { key: 'detail.too_long', max: long[1] ?? long[2] };
  if (/email/i.test(message)) return { key: 'detail.email' };
  return { key: 'detail.invalid' };
}

/**
 * An error's message and details in `locale`, for a customer. Details keep their `param` and say in
 * the customer's language what is wrong with it; the message of validation_failed names the first.
 */
export function localizeError(
  locale: CustomerLocale,
  code: string,
  message: string,
  details: ErrorDetail[] | undefined,
  values: Record<string, string> = {},
): { message: string; details: ErrorDetail[] | undefined } {
  if (locale === 'en') return { message, details };
  const table = MESSAGES[locale];
  const translated = details?.map((d) => {
    const kind = detailKind(d.message);
    return { param: d.param, message: table[kind.key]!.replace('{max}', kind.max ?? '') };
  });
  if (code === 'validation_failed' && translated?.[0]) {
    const first = translated[0];
    return { message: `${first.param}: ${first.message}`, details: translated };
  }
  const localized = table[code]?.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
  return { message: localized ?? message, details: translated };
}
