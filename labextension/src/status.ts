/** The status-bar item: the project's effective default mode; a click opens the panel. */
import { Widget } from '@lumino/widgets';

import { AgentToolsModel } from './model';

export class ModeStatus extends Widget {
  constructor(model: AgentToolsModel, onClick: () => void) {
    super();
    this.model = model;
    this.addClass('agenttools-StatusMode');
    this.addClass('jp-StatusBar-TextItem');
    this.node.id = 'agenttools-status-mode';
    this.node.addEventListener('click', onClick);
    model.changed.connect(this._update, this);
    this._update();
  }

  readonly model: AgentToolsModel;

  dispose(): void {
    this.model.changed.disconnect(this._update, this);
    super.dispose();
  }

  private _update(): void {
    const settings = this.model.settings;
    const mode = settings ? settings.mode : '…';
    this.node.textContent = `Agent: ${mode}`;
    this.node.dataset.mode = settings ? settings.mode : '';
    this.node.title = this.model.error
      ? `Agent permissions: ${this.model.error}`
      : `Agent permission mode${settings?.mode_source ? ' from ' + settings.mode_source : ''}` +
        ' (click to open the permissions panel)';
  }
}
