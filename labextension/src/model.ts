/**
 * The project's settings as last read from the server, shared by the panel and the
 * status-bar item; every write goes through here and refreshes both.
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

  async refresh(): Promise<void> {
    try {
      this._settings = await requestAPI<ISettings>('settings');
      this._error = '';
    } catch (error) {
      this._error = (error as Error).message;
    }
    this._changed.emit();
  }

  async addRule(layer: string, behavior: string, rule: string): Promise<void> {
    const reply = await sendJSON<{ settings: ISettings }>('rules', 'POST', {
      layer,
      behavior,
      rule
    });
    this._update(reply.settings);
  }

  async removeRule(rule: IRule): Promise<void> {
    const reply = await sendJSON<{ settings: ISettings }>('rules', 'DELETE', {
      layer: rule.layer,
      behavior: rule.behavior,
      rule: rule.rule
    });
    this._update(reply.settings);
  }

  async setMode(layer: string, mode: string | null): Promise<void> {
    const reply = await sendJSON<{ settings: ISettings }>('mode', 'PUT', { layer, mode });
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
  private _error = '';
  private _timer = 0;
  private _changed = new Signal<this, void>(this);
}
