/**
 * The running kernels as the agent sessions in them see themselves: project, effective mode
 * (and whether `%agent mode` overrides the settings), model, session rules, open questions.
 * Read from GET <baseUrl>/agenttools/kernels, which serves the state file each kernel's
 * `%load_ext jupyter_agenttools` keeps up to date.
 */
import { ISignal, Signal } from '@lumino/signaling';

import { requestAPI } from './request';

export interface IPendingQuestion {
  id: string;
  tool: string;
  title: string;
  why: string;
  safety: boolean;
  run: string;
}

export interface IAgentState {
  project_dir: string;
  cwd: string;
  mode: string;
  mode_source: string;
  settings_mode: string;
  session_override: boolean;
  model: string;
  conversation: { prompts: number };
  session_rules: { behavior: string; rule: string }[];
  pending: IPendingQuestion[];
  runs: { active: number; total: number };
  updated: number;
  /** the project's settings hold allow rules, a mode or directories not trusted yet */
  trust_pending?: boolean;
  /** ...trusted once, and changed since */
  trust_changed?: boolean;
  [key: string]: unknown;
}

export interface IKernelInfo {
  id: string;
  name: string;
  execution_state: string;
  notebook: string | null;
  agent: IAgentState | null;
}

export interface IKernels {
  server_project: string;
  kernels: IKernelInfo[];
}

export class KernelsModel {
  get kernels(): IKernelInfo[] {
    return this._data?.kernels ?? [];
  }

  get serverProject(): string {
    return this._data?.server_project ?? '';
  }

  /** Kernels that loaded the extension. */
  get agents(): IKernelInfo[] {
    return this.kernels.filter(k => k.agent !== null);
  }

  get pending(): { kernel: IKernelInfo; question: IPendingQuestion }[] {
    const out: { kernel: IKernelInfo; question: IPendingQuestion }[] = [];
    for (const kernel of this.agents) {
      for (const question of kernel.agent?.pending ?? []) {
        out.push({ kernel, question });
      }
    }
    return out;
  }

  /** Every project a kernel works in, the server's own first. */
  get projects(): string[] {
    const out = this.serverProject ? [this.serverProject] : [];
    for (const kernel of this.agents) {
      const dir = kernel.agent?.project_dir;
      if (dir && !out.includes(dir)) {
        out.push(dir);
      }
    }
    return out;
  }

  get error(): string {
    return this._error;
  }

  get changed(): ISignal<this, void> {
    return this._changed;
  }

  /** Questions that appeared since the last call (for notifications). */
  newQuestions(): { kernel: IKernelInfo; question: IPendingQuestion }[] {
    // question ids count per kernel ("ask-1" in every kernel): the key names both
    const key = (p: { kernel: IKernelInfo; question: IPendingQuestion }): string =>
      `${p.kernel.id} ${p.question.id}`;
    const fresh = this.pending.filter(p => !this._seen.has(key(p)));
    this._seen = new Set(this.pending.map(key));
    return fresh;
  }

  async refresh(): Promise<void> {
    try {
      this._data = await requestAPI<IKernels>('kernels');
      this._error = '';
    } catch (error) {
      this._error = (error as Error).message;
    }
    this._changed.emit();
  }

  /** Re-read every `ms` milliseconds; 0 stops (refresh on demand only). */
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

  private _data: IKernels | null = null;
  private _error = '';
  private _timer = 0;
  private _seen = new Set<string>();
  private _changed = new Signal<this, void>(this);
}
