// The pages' language: German or English, one catalogue per language (i18n/de.json,
// i18n/en.json) keyed by meaning, plurals through Intl.PluralRules. German for a browser
// that prefers it (navigator.languages), else English; a switch in the page's header
// remembers the choice on this device. The rule texts are RULES.md's (English, the
// reference, from /web/meta.json) or their German texts (i18n/rules.de.json).

export const LANGUAGES = ['de', 'en'];
const STORED = 'doko-language';

/** The language the pages speak: the one chosen on this device, else the browser's first
 * preferred language the pages know, else English. */
export function language() {
  const chosen = localStorage.getItem(STORED);
  if (LANGUAGES.includes(chosen)) return chosen;
  const preferred = (navigator.languages ?? [navigator.language]).map((tag) => tag.slice(0, 2).toLowerCase());
  return preferred.find((tag) => LANGUAGES.includes(tag)) ?? 'en';
}

const lang = language();
let catalogue = {};
let germanRules = {};
const plurals = new Intl.PluralRules(lang);

/** Load the page's catalogue (and the German rule texts for German), set the document's
 * language, and put the words of the page's shell (marked with data-i18n) in it. */
export async function loadLanguage() {
  const [words, rules] = await Promise.all([
    fetch(`/web/i18n/${lang}.json`).then((answer) => answer.json()),
    lang === 'de' ? fetch('/web/i18n/rules.de.json').then((answer) => answer.json()) : {},
  ]);
  catalogue = words;
  germanRules = rules;
  document.documentElement.lang = lang;
  for (const element of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll('[data-i18n]'))) element.textContent = t(element.dataset.i18n);
  languageSwitch();
}

/** The catalogue's text for `key`, its `{name}` places filled from `params`; a plural text
 * (an object of Intl.PluralRules categories) is chosen by `params.count`. A key the
 * catalogue lacks is shown as itself (`fallback` if given: an API word not yet known). */
export function t(key, params = {}, fallback = undefined) {
  let text = catalogue[key];
  if (text === undefined) return fallback ?? key;
  if (typeof text === 'object') text = text[plurals.select(params.count)] ?? text.other;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in params ? String(params[name]) : whole));
}

/** The text of an API word in this language (a game type, declaration, party …): the key
 * `family.value`, or the value itself as words when the catalogue does not know it. */
export const term = (family, value) => t(`${family}.${value}`, {}, String(value).replaceAll('_', ' '));

/** The rule texts by id in this language, from the English ones (RULES.md, the reference). */
export const ruleTexts = (english) => (lang === 'de' ? { ...english, ...germanRules } : english);

/** The language switch in the header: the other language, remembered on this device. */
function languageSwitch() {
  const nav = document.querySelector('header.top nav');
  if (!nav || document.getElementById('language')) return;
  const other = LANGUAGES.find((l) => l !== lang);
  const button = document.createElement('button');
  button.type = 'button';
  button.id = 'language';
  button.lang = other;
  button.className = 'language';
  button.textContent = t(`language.${other}`);
  button.addEventListener('click', () => {
    localStorage.setItem(STORED, other);
    location.reload();
  });
  nav.append(' ', button);
}
