/**
 * jupyter-agenttools: the "Agent permissions" sidebar panel and a status-bar item with the
 * project's default permission mode. All data comes from the server extension under
 * <baseUrl>/agenttools/.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette } from '@jupyterlab/apputils';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';
import { LabIcon } from '@jupyterlab/ui-components';

import { AgentToolsModel } from './model';
import { PermissionsPanel } from './panel';
import { ModeStatus } from './status';

const SHIELD =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
  '<path class="jp-icon3" fill="#616161" d="M12 1 3 5v6c0 5.55 3.84 10.74 9 12 ' +
  '5.16-1.26 9-6.45 9-12V5l-9-4zm-2 16-4-4 1.41-1.41L10 14.17l6.59-6.59L18 9l-8 8z"/></svg>';

export const shieldIcon = new LabIcon({ name: 'jupyter-agenttools:shield', svgstr: SHIELD });

const COMMAND_OPEN = 'agenttools:open-permissions';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agenttools:plugin',
  description: 'Agent permissions panel and status-bar mode for jupyter_agenttools.',
  autoStart: true,
  optional: [IStatusBar, ICommandPalette, ISettingRegistry],
  activate: (
    app: JupyterFrontEnd,
    statusBar: IStatusBar | null,
    palette: ICommandPalette | null,
    settingRegistry: ISettingRegistry | null
  ) => {
    const model = new AgentToolsModel();
    const panel = new PermissionsPanel(model);
    panel.title.icon = shieldIcon;
    app.shell.add(panel, 'left', { rank: 650 });

    app.commands.addCommand(COMMAND_OPEN, {
      label: 'Open Agent Permissions',
      caption: 'Show the agent permission rules, modes and audit log',
      icon: shieldIcon,
      execute: () => app.shell.activateById(panel.id)
    });
    palette?.addItem({ command: COMMAND_OPEN, category: 'Agent' });

    if (statusBar) {
      const item = new ModeStatus(model, () => void app.commands.execute(COMMAND_OPEN));
      statusBar.registerStatusItem('jupyter-agenttools:mode', {
        item,
        align: 'left',
        rank: 50
      });
    }

    void model.refresh();
    model.poll(10000);
    // schema/plugin.json: refreshInterval (s, 0 = on demand only), sidebarWidth (px)
    if (settingRegistry) {
      const apply = (settings: ISettingRegistry.ISettings): void => {
        const seconds = settings.get('refreshInterval').composite as number;
        model.poll(seconds > 0 ? seconds * 1000 : 0);
        const width = settings.get('sidebarWidth').composite as number;
        panel.node.style.minWidth = `${width}px`;
      };
      settingRegistry
        .load(plugin.id)
        .then(settings => {
          apply(settings);
          settings.changed.connect(apply);
        })
        .catch(reason => console.warn('jupyter-agenttools: settings not loaded', reason));
    }
  }
};

export default plugin;
