/**
 * The question cards inside notebook outputs (ipywidgets drawn by the kernel), from the page's
 * side:
 *
 * - when a notebook's kernel restarts, dies or is replaced, every card still open in it is
 *   closed visibly (its buttons can no longer reach the kernel that asked), and every run
 *   panel still going says it stopped;
 * - keyboard shortcuts on a card that has the focus (click it, or Tab to it): 1 allow once,
 *   2 allow for this session, 3 always allow, 4 deny (with the typed message), m the message
 *   box. The card suppresses JupyterLab's own shortcuts (1–4 would change the cell type).
 */
import { ISessionContext } from '@jupyterlab/apputils';
import { JupyterFrontEnd } from '@jupyterlab/application';
import { ISignal } from '@lumino/signaling';
import { Widget } from '@lumino/widgets';

const OPEN_CARD =
  '.agenttools-question:not(.agenttools-question-answered):not(.agenttools-question-closed)';

const KEYS: Record<string, string> = {
  '1': 'agenttools-allow_once',
  '2': 'agenttools-allow_session',
  '3': 'agenttools-always',
  '4': 'agenttools-deny'
};

/** Close the open cards (and mark the running panels) under `root`, saying why. */
export function closeCards(root: HTMLElement, why: string): number {
  let closed = 0;
  root.querySelectorAll<HTMLElement>(OPEN_CARD).forEach(card => {
    card.classList.add('agenttools-question-closed', 'agenttools-question-orphaned');
    card.querySelectorAll<HTMLButtonElement | HTMLInputElement | HTMLSelectElement>(
      'button, input, select'
    ).forEach(control => {
      control.disabled = true;
    });
    const banner = document.createElement('div');
    banner.className = 'agenttools-closed-banner';
    banner.textContent = `Closed: ${why}. This question can no longer be answered; run the cell again to ask anew.`;
    card.prepend(banner);
    closed += 1;
  });
  root.querySelectorAll<HTMLElement>('.agenttools-panel').forEach(panel => {
    if (panel.querySelector('.agenttools-stopped-banner')) {
      return;
    }
    const cancel = panel.querySelector<HTMLButtonElement>('button.agenttools-cancel');
    const running = cancel && cancel.offsetParent !== null && !cancel.disabled;
    if (!running) {
      return;
    }
    cancel.disabled = true;
    const banner = document.createElement('div');
    banner.className = 'agenttools-stopped-banner';
    banner.textContent = `Stopped: ${why}; this run is gone with the kernel.`;
    panel.prepend(banner);
  });
  return closed;
}

/** The parts of a notebook widget used here (duck-typed: no dependency on the notebook). */
interface IOutputsLike {
  length: number;
  get(index: number): { data: Record<string, unknown> };
  set(index: number, output: Record<string, unknown>): void;
}
interface ICellLike {
  node: HTMLElement;
  model: { type: string; outputs?: IOutputsLike };
}
type NotebookLike = Widget & { content?: { widgets?: readonly ICellLike[] } };

const WIDGET_VIEW = 'application/vnd.jupyter.widget-view+json';

function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_<>[\]#|]/g, ch => `\\${ch}`);
}

/**
 * Replace, in the notebook's model, the output of every run panel cut off by the kernel's end
 * with plain Markdown that says so (and names the questions left open): the widget's state
 * died with the kernel, so a saved notebook would otherwise show "model not found".
 */
export function freezePanels(widget: NotebookLike, why: string): number {
  let frozen = 0;
  for (const cell of widget.content?.widgets ?? []) {
    const outputs = cell.model.type === 'code' ? cell.model.outputs : undefined;
    const panel = cell.node.querySelector<HTMLElement>('.agenttools-panel');
    if (!outputs || !panel || !panel.querySelector('.agenttools-stopped-banner')) {
      continue;
    }
    const title = panel.querySelector('.agenttools-status b')?.textContent ?? 'agent run';
    const questions = Array.from(panel.querySelectorAll('.agenttools-question-title'))
      .map(q => (q.textContent ?? '').replace(/^Permission needed:\s*/, ''));
    const calls = panel.querySelectorAll('.agenttools-tool-call').length;
    const lines = [`**${escapeMarkdown(title)}** · stopped: ${why} · ${calls} tool call` +
      (calls === 1 ? '' : 's')];
    const plain = [`${title} · stopped: ${why}`];
    for (const question of questions) {
      lines.push(`Closed unanswered: ${escapeMarkdown(question)}`);
      plain.push(`closed unanswered: ${question}`);
    }
    lines.push('The run went with the kernel; run the cell again to start it anew.');
    for (let index = 0; index < outputs.length; index++) {
      const data = outputs.get(index).data;
      if (data[WIDGET_VIEW] && data['text/plain'] === '<agent run panel>') {
        outputs.set(index, {
          output_type: 'display_data',
          data: { 'text/markdown': lines.join('\n\n'), 'text/plain': plain.join('\n') },
          metadata: {}
        });
        frozen += 1;
      }
    }
  }
  return frozen;
}

const GONE: Record<string, string> = {
  restarting: 'the kernel restarted',
  autorestarting: 'the kernel died and was restarted',
  dead: 'the kernel died',
  terminating: 'the kernel was shut down'
};

/**
 * Watch every document with a kernel in the main area: a restart, a death or a change of
 * kernel closes the cards in it.
 */
export class CardGuard {
  constructor(app: JupyterFrontEnd) {
    this._app = app;
    // JupyterLab's shell says when its layout changes; any shell says what is current
    const shell = app.shell as JupyterFrontEnd.IShell & { layoutModified?: ISignal<unknown, void> };
    shell.layoutModified?.connect(this._scan, this);
    shell.currentChanged?.connect(this._scan, this);
    this._scan();
    this._observer = new MutationObserver(records => this._onMutations(records));
    // ipywidgets sets a view's classes after it is in the page: watch those too
    this._observer.observe(document.body, {
      childList: true,
      subtree: true,
      attributes: true,
      attributeFilter: ['class']
    });
    this._prepare(document.body);
  }

  private _scan(): void {
    for (const widget of this._app.shell.widgets('main')) {
      const context = (widget as Widget & { sessionContext?: ISessionContext }).sessionContext;
      if (!context || this._watched.has(context)) {
        continue;
      }
      this._watched.add(context);
      const gone = (why: string): void => {
        closeCards(widget.node, why);
        freezePanels(widget as NotebookLike, why);
      };
      context.statusChanged.connect((_sender, status) => {
        const why = GONE[status];
        if (why) {
          gone(why);
        }
      });
      context.kernelChanged.connect((_sender, change) => {
        if (change.oldValue) {
          gone('the notebook is now connected to another kernel');
        }
      });
    }
  }

  private _onMutations(records: MutationRecord[]): void {
    for (const record of records) {
      if (record.type === 'attributes') {
        const target = record.target as HTMLElement;
        if (target.classList?.contains('agenttools-question')) {
          this._prepare(target);
        }
        continue;
      }
      record.addedNodes.forEach(node => {
        if (node instanceof HTMLElement) {
          this._prepare(node);
        }
      });
    }
  }

  /** Make the cards under `root` focusable and give them their keys. */
  private _prepare(root: HTMLElement): void {
    const cards: HTMLElement[] = root.matches?.('.agenttools-question') ? [root] : [];
    root.querySelectorAll?.<HTMLElement>('.agenttools-question').forEach(c => cards.push(c));
    for (const card of cards) {
      if (card.dataset.agenttoolsKeys) {
        continue;
      }
      card.dataset.agenttoolsKeys = 'true';
      card.tabIndex = 0;
      card.setAttribute('data-lm-suppress-shortcuts', 'true');
      card.setAttribute('aria-label', 'Permission question: 1 allow once, 2 allow for this ' +
        'session, 3 always allow, 4 deny');
      card.addEventListener('keydown', event => onCardKey(card, event));
    }
  }

  private _app: JupyterFrontEnd;
  private _observer: MutationObserver;
  private _watched = new WeakSet<ISessionContext>();
}

function onCardKey(card: HTMLElement, event: KeyboardEvent): void {
  const target = event.target as HTMLElement;
  if (target.matches('input, textarea, select') || event.ctrlKey || event.metaKey ||
      event.altKey) {
    return; // typing a message, or a shortcut of the browser
  }
  if (event.key === 'm') {
    card.querySelector<HTMLInputElement>('.agenttools-deny-message input')?.focus();
    event.preventDefault();
    return;
  }
  const css = KEYS[event.key];
  if (!css) {
    return;
  }
  const button = card.querySelector<HTMLButtonElement>(`button.${css}`);
  if (button && !button.disabled) {
    button.click();
    event.preventDefault();
    event.stopPropagation();
  }
}
