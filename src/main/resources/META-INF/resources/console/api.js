// The broker's HTTP API as the console uses it: same origin, JSON in and out, the token of this tab
// (sessionStorage) sent as "Authorization: Bearer" on every call.
const KEY = 'queen.token';

export class ApiError extends Error {
  constructor(status, message, body) {
    super(message);
    this.status = status;
    this.body = body;
  }
}

export function token() {
  return sessionStorage.getItem(KEY) || '';
}

export function setToken(t) {
  if (t) sessionStorage.setItem(KEY, t.trim());
  else sessionStorage.removeItem(KEY);
}

/** The token's claims (payload decoded, signature NOT checked: for display only, the broker enforces). */
export function claims() {
  const t = token();
  if (!t) return null;
  try {
    const part = t.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const json = new TextDecoder().decode(Uint8Array.from(atob(part + '='.repeat((4 - part.length % 4) % 4)),
      c => c.charCodeAt(0)));
    return JSON.parse(json);
  } catch {
    return null;
  }
}

const RANK = { 'read-only': 1, 'write-only': 1, 'read-write': 2, admin: 3 };

/**
 * The role shown and used to decide which buttons to draw: "admin" without a token (with authentication off
 * every route is open), else the broker's rule: the union of the "role" claim (a string) and the "roles" claim
 * (an array of strings), exact lowercase names; read-only with write-only is read-write.
 */
export function role() {
  const c = claims();
  if (!token()) return 'admin';
  if (!c) return 'unknown';
  const names = [];
  if (typeof c.role === 'string') names.push(c.role);
  if (Array.isArray(c.roles)) for (const r of c.roles) if (typeof r === 'string') names.push(r);
  let best = 'unknown';
  for (const r of names) if ((RANK[r] || 0) > (RANK[best] || 0)) best = r;
  if (best !== 'admin' && names.includes('read-only') && names.includes('write-only')) best = 'read-write';
  return best;
}

export const canWrite = () => ['read-write', 'admin'].includes(role());
export const isAdmin = () => role() === 'admin';
/** Broker-wide metrics are served to the default tenant only: a token naming a tenant does not ask for them. */
export const seesCluster = () => !(claims() && claims().tenant);

let onAuthNeeded = () => {};
export function whenAuthNeeded(f) {
  onAuthNeeded = f;
}

export async function api(path, { method = 'GET', body, signal } = {}) {
  const headers = { Accept: 'application/json' };
  const t = token();
  if (t) headers.Authorization = 'Bearer ' + t;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal });
  const text = await res.text();
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!res.ok) {
    const msg = (data && data.error) || res.statusText || 'HTTP ' + res.status;
    if (res.status === 401) onAuthNeeded(msg);
    throw new ApiError(res.status, msg, data);
  }
  return data;
}

export const get = (path, opts) => api(path, opts);
export const post = (path, body) => api(path, { method: 'POST', body: body === undefined ? {} : body });
export const del = path => api(path, { method: 'DELETE' });

/** Query string from an object, skipping empty values. */
export function qs(o) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null && v !== '') p.set(k, v);
  const s = p.toString();
  return s ? '?' + s : '';
}
