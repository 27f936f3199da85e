/**
 * jupyter-agenttools: the agent panel in the left sidebar (running notebooks' agents, a
 * project's permission settings, the audit log), a status-bar item (the current notebook's
 * mode and a badge with the questions waiting), a notification when an agent asks, and the
 * page side of the question cards (closed on a kernel restart, keyboard shortcuts). All data
 * comes from the server extension under <baseUrl>/agenttools/.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { ICommandPalette, ISessionContext, Notification } from '@jupyterlab/apputils';
import { ISettingRegistry } from '@jupyterlab/settingregistry';
import { IStatusBar } from '@jupyterlab/statusbar';
import { LabIcon } from '@jupyterlab/ui-components';
import { Widget } from '@lumino/widgets';

import { CardGuard } from './cards';
import { IKernelInfo, KernelsModel } from './kernels';
import { AgentToolsModel } from './model';
import { PermissionsPanel } from './panel';
import { ModeStatus } from './status';

const SHIELD =
  '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
  '<path class="jp-icon3" fill="#616161" d="M12 1 3 5v6c0 5.55 3.84 10.74 9 12 ' +
  '5.16-1.26 9-6.45 9-12V5l-9-4zm-2 16-4-4 1.41-1.41L10 14.17l6.59-6.59L18 9l-8 8z"/></svg>';

export const shieldIcon = new LabIcon({ name: 'jupyter-agenttools:shield', svgstr: SHIELD });

const COMMAND_OPEN = 'agenttools:open-permissions';
/** How often the running kernels' agent state is read (the badge and the panel). */
const KERNELS_POLL_MS = 2500;
/** How long "Question closed" shows in place of a question's notification. */
const NOTICE_CLOSE_MS = 2500;

type WithSession = Widget & { sessionContext?: ISessionContext };

function sessionOf(widget: Widget | null): ISessionContext | null {
  return (widget as WithSession | null)?.sessionContext ?? null;
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agenttools:plugin',
  description: 'Agent panel, status-bar mode and question badge, and card handling for ' +
    'jupyter_agenttools.',
  autoStart: true,
  optional: [IStatusBar, ICommandPalette, ISettingRegistry],
  activate: (
    app: JupyterFrontEnd,
    statusBar: IStatusBar | null,
    palette: ICommandPalette | null,
    settingRegistry: ISettingRegistry | null
  ) => {
    const model = new AgentToolsModel();
    const kernels = new KernelsModel();

    const currentKernel = (): string | null =>
      sessionOf(app.shell.currentWidget)?.session?.kernel?.id ?? null;

    /** The notebook of `kernel`, opened and in front, with the question's card in view. */
    const showQuestion = async (kernel: IKernelInfo, questionId: string): Promise<void> => {
      let target: Widget | null = null;
      for (const widget of app.shell.widgets('main')) {
        if (sessionOf(widget)?.session?.kernel?.id === kernel.id) {
          target = widget;
        }
      }
      if (target) {
        app.shell.activateById(target.id);
      } else if (kernel.notebook) {
        target = (await app.commands.execute('docmanager:open', {
          path: kernel.notebook
        })) as Widget | null;
      }
      const card = target?.node.querySelector<HTMLElement>(`.agenttools-ask-${questionId}`);
      if (card) {
        card.scrollIntoView({ block: 'center' });
        keepFocus(card);
      }
    };

    const panel = new PermissionsPanel(model, kernels, (k, id) => void showQuestion(k, id));
    panel.title.icon = shieldIcon;
    app.shell.add(panel, 'left', { rank: 650 });

    app.commands.addCommand(COMMAND_OPEN, {
      label: 'Open the Agent Panel',
      caption: 'Show the notebooks\' agents, the permission rules, modes and audit log',
      icon: shieldIcon,
      execute: () => app.shell.activateById(panel.id)
    });
    palette?.addItem({ command: COMMAND_OPEN, category: 'Agent' });

    let status: ModeStatus | null = null;
    if (statusBar) {
      status = new ModeStatus(model, kernels, currentKernel,
        () => void app.commands.execute(COMMAND_OPEN));
      statusBar.registerStatusItem('jupyter-agenttools:mode', {
        item: status,
        align: 'left',
        rank: 50
      });
    }

    // The panel shows the current notebook's project unless the person picked one.
    const follow = (): void => {
      const id = currentKernel();
      const agent = kernels.agents.find(k => k.id === id)?.agent;
      panel.followProject(agent ? agent.project_dir : null);
      status?.update();
    };
    app.shell.currentChanged?.connect(follow);

    // A notification for every question that appears, with a way to it; it goes away when
    // the question is answered (wherever) or closed.
    const notices = new Map<string, { notice: string; text: string }>();
    kernels.changed.connect(() => {
      for (const { kernel, question } of kernels.newQuestions()) {
        const where = kernel.notebook ?? `kernel ${kernel.id.slice(0, 8)}`;
        const text = `${question.title} (${where})`;
        notices.set(`${kernel.id} ${question.id}`, {
          notice: Notification.warning(`The agent asks: ${text}`, {
            autoClose: false,
            actions: [{ label: 'Show', callback: () => void showQuestion(kernel, question.id) }]
          }),
          text
        });
      }
      // question ids count per kernel ("ask-1" in every kernel): the key names both
      const open = new Set(kernels.pending.map(p => `${p.kernel.id} ${p.question.id}`));
      for (const [id, { notice, text }] of notices) {
        if (open.has(id) || kernels.error) {
          continue;
        }
        // "Question closed" for a moment, then off the list: the toast closes by itself
        // (autoClose), not only through the dismissal. A toast that stayed for good was a
        // question that stayed open: a kernel that died kept its dead run's question in its
        // state file until the server learnt to tell (panel_api._left_by_a_dead_process).
        Notification.update({
          id: notice, message: `Question closed: ${text}`, type: 'info',
          autoClose: NOTICE_CLOSE_MS, actions: []
        });
        window.setTimeout(() => Notification.dismiss(notice), 3 * NOTICE_CLOSE_MS);
        notices.delete(id);
      }
      follow();
    });

    new CardGuard(app);

    void model.refresh();
    void kernels.refresh();
    model.poll(10000);
    kernels.poll(KERNELS_POLL_MS);
    // schema/plugin.json: refreshInterval (s, 0 = on demand only), sidebarWidth (px). The
    // kernels' state (the question badge, notifications) is read at least every 2.5 s.
    if (settingRegistry) {
      const apply = (settings: ISettingRegistry.ISettings): void => {
        const seconds = settings.get('refreshInterval').composite as number;
        model.poll(seconds > 0 ? seconds * 1000 : 0);
        kernels.poll(seconds > 0 ? Math.min(seconds * 1000, KERNELS_POLL_MS) : 0);
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

/**
 * Give `card` the focus, and give it back for a second while the notebook, activated just now,
 * takes the focus for itself (later under load than a fixed delay allows): a key pressed then
 * must reach the card's shortcuts, not the notebook's command mode. The person's own click or
 * key ends it.
 */
function keepFocus(card: HTMLElement): void {
  let ticks = 0;
  const stop = (): void => {
    window.clearInterval(timer);
    document.removeEventListener('pointerdown', stop, true);
    document.removeEventListener('keydown', stop, true);
  };
  const timer = window.setInterval(() => {
    if (!card.isConnected || ++ticks > 20) {
      stop();
    } else if (!card.contains(document.activeElement)) {
      card.focus();
    }
  }, 50);
  document.addEventListener('pointerdown', stop, true);
  document.addEventListener('keydown', stop, true);
  card.focus();
}
