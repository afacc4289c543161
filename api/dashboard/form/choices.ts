// The fixed choices of the compose form: languages (OneSignal's list of codes, named by the
// runtime's Intl.DisplayNames, so no table of names to keep) and time zones (the runtime's IANA list).
const LANGUAGE_CODES = [
  'en', 'ar', 'bg', 'bs', 'ca', 'cs', 'da', 'de', 'el', 'es', 'et', 'fa', 'fi', 'fr', 'he', 'hi', 'hr', 'hu', 'id', 'it',
  'ja', 'ka', 'ko', 'lt', 'lv', 'ms', 'nb', 'nl', 'pa', 'pl', 'pt', 'pt-BR', 'ro', 'ru', 'sk', 'sr', 'sv', 'th', 'tr', 'uk',
  'vi', 'zh-Hans', 'zh-Hant',
];
const names = new Intl.DisplayNames(['en'], { type: 'language' });

/** [code, "English (en)"], sorted by name with English first. */
export const LANGUAGES: [string, string][] = LANGUAGE_CODES.map((c): [string, string] => [c, `${names.of(c) ?? c} (${c})`])
  .sort((a, b) => (a[0] === 'en' ? -1 : b[0] === 'en' ? 1 : a[1].localeCompare(b[1])));

export const TIME_ZONES: string[] = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
