/**
 * Calls to the server extension under <baseUrl>/agenttools/. ServerConnection.makeRequest
 * adds the token and the XSRF header, so cookie sessions work too.
 */
import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number
  ) {
    super(message);
  }
}

export async function requestAPI<T>(
  endpoint: string,
  init: RequestInit = {},
  query: Record<string, string> = {}
): Promise<T> {
  const settings = ServerConnection.makeSettings();
  let url = URLExt.join(settings.baseUrl, 'agenttools', endpoint);
  const params = new URLSearchParams(query).toString();
  if (params) {
    url += '?' + params;
  }
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    throw new ServerConnection.NetworkError(error as TypeError);
  }
  const text = await response.text();
  let data: any = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = { error: text };
    }
  }
  if (!response.ok) {
    const message = (data && (data.error || data.message)) || response.statusText;
    throw new ApiError(message, response.status);
  }
  return data as T;
}

export function sendJSON<T>(
  endpoint: string,
  method: 'POST' | 'PUT' | 'DELETE',
  body: unknown,
  query: Record<string, string> = {}
): Promise<T> {
  return requestAPI<T>(endpoint, { method, body: JSON.stringify(body) }, query);
}

// --- shapes of the replies ------------------------------------------------------------------

export interface ILayer {
  layer: string;
  file: string;
  exists: boolean;
  writable: boolean;
  mode: string | null;
  additional_directories: string[];
}

export interface IRule {
  rule: string;
  behavior: 'allow' | 'ask' | 'deny';
  layer: string;
  file: string;
  examples?: unknown[];
  counter_examples?: unknown[];
  /** false: the rule is in a settings file but does not count (untrusted, locked down) */
  active?: boolean;
  ignored_why?: string | null;
}

/** The project's trust (`permission/trust.py`), part of the settings answer. */
export interface ITrust {
  project: string;
  trusted: boolean;
  /** do the project's files hold allow rules, a mode or directories (what needs trust)? */
  needed: boolean;
  /** trusted once, changed since */
  changed: boolean;
  sha256: string;
  trusted_at: string | null;
  explanation?: string;
  /** what changed since the trust ([] if nothing; null: changed, but what is not known) */
  changes?: ITrustChange[] | null;
}

/** One change of the trust-needing parts since the folder was trusted (`trust_changes`). */
export interface ITrustChange {
  layer: string;
  /** the file, relative to the project: `.agenttools/settings.json` */
  file: string;
  /** `allow`, `mode` or `additional_directories` */
  key: string;
  change: 'added' | 'removed' | 'changed' | 'reordered';
  value: unknown;
  before: unknown;
  after: unknown;
  /** as a person reads it: `+ allow Bash(curl:*)`, `mode default → bypass` */
  text: string;
}

/** A part of a settings file held back, and why. */
export interface IIgnored {
  layer: string;
  file: string;
  key: string;
  value: unknown;
  why: string;
}

export interface ISettings {
  project_root: string;
  mode: string;
  mode_source: string | null;
  modes: string[];
  layers: ILayer[];
  rules: IRule[];
  additional_directories: string[];
  audit_file: string;
  trust?: ITrust | null;
  ignored?: IIgnored[];
}

export interface IValidation {
  ok: boolean;
  error?: string;
  rule?: string;
  known_tool?: boolean;
}

export interface ITraceStep {
  step: string;
  outcome: string;
  detail: string;
}

export interface IDecision {
  behavior: string;
  message: string;
  reason: string;
  bypass_immune: boolean;
  step: string | null;
  rule: string | null;
  rule_source: string | null;
  suggestions: string[];
  trace: ITraceStep[];
  mode: string;
}

export interface IAuditEntry {
  time?: string;
  kind?: string;
  tool?: string;
  input?: string;
  mode?: string;
  step?: string;
  rule?: string | null;
  rule_source?: string | null;
  behavior?: string;
  answer?: string;
  reason?: string;
  state?: string;
  agent?: string;
  user?: string;
  [key: string]: unknown;
}

export interface IAudit {
  entries: IAuditEntry[];
  skipped: number;
  file: string;
}
