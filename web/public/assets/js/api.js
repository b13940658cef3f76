// The REST API client: JSON in and out, the tab's bearer token when one is set, and errors that
// say whether the endpoint itself is missing (a server without drift, jobs or alerts yet).
import { getToken } from './token.js';

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
  // The server has no such endpoint (as opposed to "no such fork"): the feature is not there.
  get endpointMissing() {
    return this.status === 404 && this.message === 'no such endpoint';
  }
}

async function request(method, path, { body, token, accept = 'application/json' } = {}) {
  const headers = { Accept: accept };
  const bearer = token ?? getToken();
  if (bearer) headers.Authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError(0, 'network', err.message || 'network error');
  }
  if (res.ok) return res;
  let code = 'error';
  let message = `${res.status} ${res.statusText}`;
  try {
    const doc = await res.json();
    if (doc && doc.error) ({ code, message } = doc.error);
  } catch {
    // not JSON: keep the status line
  }
  throw new ApiError(res.status, code, message);
}

export async function getJson(path, options) {
  const res = await request('GET', path, options);
  return res.json();
}

export async function getText(path, options) {
  const res = await request('GET', path, { ...options, accept: 'text/markdown, text/plain' });
  return res.text();
}

export async function postJson(path, body, options) {
  const res = await request('POST', path, { ...options, body });
  return res.status === 204 ? null : res.json();
}

export function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

// Per-page-load cache of fork analyses keyed by fork name and analysis id (an analysis never changes).
const analyses = new Map();
export async function getAnalysis(fork) {
  const key = `${fork.name}#${fork.latest_analysis_id}`;
  if (!analyses.has(key)) {
    const p = getJson(`/api/v1/forks/${encodeURIComponent(fork.name)}/analysis`);
    analyses.set(key, p);
    p.catch(() => analyses.delete(key));
  }
  return analyses.get(key);
}
