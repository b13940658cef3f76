// Small DOM helpers: an element builder (text is always set as text, never parsed as HTML) and
// formatting of times, ages and counts.
import { t, lang } from './i18n.js';

// h('a', {href: '/x', class: 'c', onclick: fn, 'aria-label': '…'}, 'text', child, …)
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function') el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else if (key === 'style' && typeof value === 'object') Object.assign(el.style, value);
    else if (value === true) el.setAttribute(key, '');
    else el.setAttribute(key, String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el) {
  while (el.firstChild) el.firstChild.remove();
  return el;
}

// Encodes each segment of a repository path for a URL (keeps the slashes).
export function encodePath(path) {
  return path.split('/').map(encodeURIComponent).join('/');
}

export function forkHref(name) {
  return `/forks/${encodeURIComponent(name)}`;
}

// hunkIndex is the API's 0-based hunk_index; the file page's anchors count from 1 like its titles.
export function fileHref(fork, path, hunkIndex) {
  return `${forkHref(fork)}/files/${encodePath(path)}${hunkIndex === undefined || hunkIndex === null ? '' : `#hunk-${hunkIndex + 1}`}`;
}

// seconds since the epoch or an ISO string -> Date
export function toDate(value) {
  if (value === null || value === undefined || value === '') return null;
  const d = typeof value === 'number' ? new Date(value * 1000) : new Date(value);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function formatTime(value) {
  const d = toDate(value);
  if (!d) return '—';
  return d.toLocaleString(lang() === 'zh' ? 'zh-CN' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

// "5 min ago" / "3 days ago" from now.
export function formatAgo(value) {
  const d = toDate(value);
  if (!d) return '—';
  const s = Math.max(0, Math.round((Date.now() - d.getTime()) / 1000));
  if (s < 60) return t('time.just_now');
  if (s < 3600) return t('time.minutes_ago', { n: Math.round(s / 60) });
  if (s < 86400) return t('time.hours_ago', { n: Math.round(s / 3600) });
  return t('time.days_ago', { n: Math.round(s / 86400) });
}

export function formatDays(days) {
  if (days === null || days === undefined) return '—';
  return t('time.days', { n: Math.round(days) });
}

export function formatNumber(n) {
  return n === null || n === undefined ? '—' : Number(n).toLocaleString(lang() === 'zh' ? 'zh-CN' : 'en-US');
}

export function shortSha(sha) {
  return sha ? String(sha).slice(0, 10) : '—';
}

// A message block: kind = info | error | unavailable | empty
export function notice(kind, text, extra) {
  return h('div', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : 'status' }, text, extra);
}
