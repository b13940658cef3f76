// Every string the dashboard shows, in English and Chinese. The choice is remembered in localStorage.
// t('key', {n: 3}) fills {n} and picks the plural form for n; a key missing in Chinese falls back to
// English, then to `fallback`.
import { en as baseEn, zh as baseZh } from './strings.js';
import { carryEn, carryZh } from './strings_carry.js';
import { integrationEn, integrationZh } from './strings_integration.js';

const STORAGE_KEY = 'forkscope.lang';
const en = { ...baseEn, ...carryEn, ...integrationEn };
const dictionaries = { en, zh: { ...baseZh, ...carryZh, ...integrationZh } };
let current = 'en';
const listeners = [];

export function lang() {
  return current;
}

export function initLanguage() {
  let saved = null;
  try {
    saved = localStorage.getItem(STORAGE_KEY);
  } catch {
    // storage disabled: English for this page
  }
  current = dictionaries[saved] ? saved : navigator.language?.toLowerCase().startsWith('zh') ? 'zh' : 'en';
  document.documentElement.lang = current === 'zh' ? 'zh-CN' : 'en';
}

export function setLanguage(code) {
  if (!dictionaries[code] || code === current) return;
  current = code;
  try {
    localStorage.setItem(STORAGE_KEY, code);
  } catch {
    // not remembered, still switched
  }
  document.documentElement.lang = code === 'zh' ? 'zh-CN' : 'en';
  for (const fn of listeners) fn(code);
}

export function onLanguageChange(fn) {
  listeners.push(fn);
}

const pluralRules = new Map();

// An entry may hold plural forms ({one: '{n} file', other: '{n} files'}); the count is params.count, else
// params.n, and Intl.PluralRules of the current language picks the form.
function pluralForm(entry, params) {
  if (typeof entry !== 'object' || entry === null) return entry;
  const locale = current === 'zh' ? 'zh-CN' : 'en';
  if (!pluralRules.has(locale)) pluralRules.set(locale, new Intl.PluralRules(locale));
  const n = Number(params?.count ?? params?.n ?? 0);
  return entry[pluralRules.get(locale).select(n)] ?? entry.other;
}

export function t(key, params = {}, fallback) {
  let text = pluralForm(dictionaries[current][key] ?? en[key] ?? fallback ?? key, params);
  for (const [name, value] of Object.entries(params || {})) text = text.replaceAll(`{${name}}`, String(value));
  return text;
}

// The page shell's fixed texts: data-i18n sets textContent, data-i18n-aria the aria-label.
export function applyStaticText() {
  for (const el of document.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of document.querySelectorAll('[data-i18n-aria]')) el.setAttribute('aria-label', t(el.dataset.i18nAria));
}
