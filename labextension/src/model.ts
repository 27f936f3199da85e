/**
 * The settings of one project as last read from the server, shared by the panel and the
 * status-bar item; every write goes through here and refreshes both. The project is the
 * server's own unless `project` names another (the project of a running kernel): every request
 * then carries `?project=<dir>`.
 */
import { ISignal, Signal } from '@lumino/signaling';

import { ISettings, IRule, requestAPI, sendJSON } from './request';

export class AgentToolsModel {
  get settings(): ISettings | null {
    return this._settings;
  }

  /** The last failure to read the settings (a corrupt file, the server gone), or ''. */
  get error(): string {
    return this._error;
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** The project whose settings are shown ('' = the server's own). */
  get project(): string {
    return this._project;
  }

  set project(value: string) {
    if (value !== this._project) {
      this._project = value;
      this._settings = null;
      void this.refresh();
    }
  }

  /** The query that selects the project, for any request about it. */
  get query(): Record<string, string> {
    return this._project ? { project: this._project } : {};
  }

  async refresh(): Promise<void> {
    const project = this._project;
    let settings: ISettings | null = null;
    let error = '';
    try {
      settings = await requestAPI<ISettings>('settings', {}, this.query);
    } catch (reason) {
      error = (reason as Error).message;
    }
    if (project !== this._project) {
      return; // the panel switched projects meanwhile: this answer is stale
    }
    if (settings) {
      this._settings = settings;
    }
    this._error = error;
    this._changed.emit();
  }

  async addRule(layer: string, behavior: string, rule: string): Promise<void> {
    const reply = await sendJSON<{ settings: ISettings }>(
      'rules',
      'POST',
      { layer, behavior, rule },
      this.query
    );
    this._update(reply.settings);
  }

  async removeRule(rule: IRule): Promise<void> {
    const reply = await sendJSON<{ settings: ISettings }>(
      'rules',
      'DELETE',
      { layer: rule.layer, behavior: rule.behavior, rule: rule.rule },
      this.query
    );
    this._update(reply.settings);
  }

  async setMode(layer: string, mode: string | null): Promise<void> {
    const reply = await sendJSON<{ settings: ISettings }>(
      'mode',
      'PUT',
      { layer, mode },
      this.query
    );
    this._update(reply.settings);
  }

  /** Re-read the settings every `ms` milliseconds (kernels and editors change them too);
   * 0 stops polling (refresh on demand only). */
  poll(ms: number): void {
    window.clearInterval(this._timer);
    if (ms <= 0) {
      return;
    }
    this._timer = window.setInterval(() => {
      if (!document.hidden) {
        void this.refresh();
      }
    }, ms);
  }

  dispose(): void {
    window.clearInterval(this._timer);
    Signal.clearData(this);
  }

  private _update(settings: ISettings): void {
    this._settings = settings;
    this._error = '';
    this._changed.emit();
  }

  private _settings: ISettings | null = null;
  private _project = '';
  private _error = '';
  private _timer = 0;
  private _changed = new Signal<this, void>(this);
}
