/**
 * The status-bar item: the effective mode of the current notebook's kernel (its session
 * override marked), else the project's default mode; and a badge with the number of questions
 * the agents are waiting on. A click opens the panel.
 */
import { Widget } from '@lumino/widgets';

import { KernelsModel } from './kernels';
import { AgentToolsModel } from './model';

export class ModeStatus extends Widget {
  constructor(
    model: AgentToolsModel,
    kernels: KernelsModel,
    currentKernel: () => string | null,
    onClick: () => void
  ) {
    super();
    this.model = model;
    this.kernels = kernels;
    this._currentKernel = currentKernel;
    this.addClass('agenttools-StatusMode');
    this.addClass('jp-StatusBar-TextItem');
    this.node.id = 'agenttools-status-mode';
    this.node.append(this._label, this._badge);
    this._badge.className = 'agenttools-pending-badge';
    this.node.addEventListener('click', onClick);
    model.changed.connect(this.update, this);
    kernels.changed.connect(this.update, this);
    this.update();
  }

  readonly model: AgentToolsModel;
  readonly kernels: KernelsModel;

  dispose(): void {
    this.model.changed.disconnect(this.update, this);
    this.kernels.changed.disconnect(this.update, this);
    super.dispose();
  }

  update(): void {
    const id = this._currentKernel();
    const agent = this.kernels.agents.find(k => k.id === id)?.agent ?? null;
    const settings = this.model.settings;
    let mode = settings ? settings.mode : '…';
    let title = this.model.error
      ? `Agent permissions: ${this.model.error}`
      : `Agent permission mode of the project${
          settings?.mode_source ? ' from ' + settings.mode_source : ''
        }`;
    if (agent) {
      mode = agent.mode + (agent.session_override ? ' (session)' : '');
      title = `This notebook's agent: mode ${agent.mode} (${agent.mode_source}), ` +
        `model ${agent.model}, project ${agent.project_dir}`;
      if (agent.trust_pending) {
        // the project's own mode and allow rules wait for trust: say why they do not show
        mode += ' · not trusted';
        title += '; the project\'s settings are not trusted yet, so their allow rules, mode ' +
          'and directories do not count (Trust this folder in the panel, or %agent trust)';
      }
    }
    this._label.textContent = `Agent: ${mode}`;
    this.node.dataset.mode = agent ? agent.mode : settings ? settings.mode : '';
    const pending = this.kernels.pending.length;
    this._badge.textContent = pending ? `${pending} ?` : '';
    this._badge.hidden = pending === 0;
    this._badge.title = pending
      ? `${pending} question${pending === 1 ? '' : 's'} waiting for your answer`
      : '';
    this.node.dataset.pending = String(pending);
    this.node.title = title + ' (click to open the agent panel)';
  }

  private _currentKernel: () => string | null;
  private _label = document.createElement('span');
  private _badge = document.createElement('span');
}
