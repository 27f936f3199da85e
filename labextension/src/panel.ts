/**
 * The agent panel in the left sidebar: the running notebooks' agents (project, effective mode,
 * session rules, open questions), then for one project — a kernel's or the server's — its
 * default mode per layer, rules grouped by behavior with their file, add (validated as you
 * type) / remove, a "try a command" box with the decision's trace, and the audit log, which
 * refreshes itself while the panel is open. Plain DOM inside a Lumino widget; every element a
 * test or a user stylesheet needs has a stable class.
 */
import { Widget } from '@lumino/widgets';

import { h, option } from './dom';
import { IKernelInfo, KernelsModel } from './kernels';
import { AgentToolsModel } from './model';
import { INotebooksHost, renderNotebooks } from './notebooks';
import {
  IAudit,
  IDecision,
  IIgnored,
  IRule,
  ISettings,
  ITrust,
  IValidation,
  requestAPI,
  sendJSON
} from './request';

const BEHAVIORS = ['deny', 'ask', 'allow'] as const;
const WRITABLE = ['local', 'project', 'user'];
const TOOLS = ['Bash', 'Read', 'Write', 'Edit', 'Glob', 'Grep'];
const TOOL_HINT: Record<string, string> = {
  Bash: 'a shell command, e.g. git push origin main',
  Read: 'a file path, e.g. .env',
  Write: 'a file path, e.g. src/app.py',
  Edit: 'a file path, e.g. README.md',
  Glob: 'a folder, e.g. src',
  Grep: 'a folder, e.g. .'
};
/** Who writes audit records (permission/audit.py: this package and the coding agents' hooks). */
const AGENTS = ['agenttools', 'claude-code', 'codex', 'gemini-cli'];

/** How often the audit view re-reads the log while the panel is shown. */
const AUDIT_REFRESH_MS = 3000;

/** The trust route of the permission part (`POST <baseUrl>/agenttools/trust`). */
const TRUST_ROUTE = 'trust';

/** "2026-12-03T21:30:00+00:00" as "2026-12-03 21:30 UTC" (what a person reads). */
function shortTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})/.exec(iso);
  return match ? `${match[1]} ${match[2]}${iso.endsWith('+00:00') ? ' UTC' : ''}` : iso;
}

/** A held-back part of a settings file as a person reads it: `allow Bash(make:*)`. */
function heldText(item: IIgnored): string {
  const value = typeof item.value === 'string' ? item.value : JSON.stringify(item.value);
  return `${item.key === 'additional_directories' ? 'directory' : item.key} ${value}`;
}

/** The mark of a rule or mode that is in a file but does not count; the reason on hover. */
function heldBadge(why: string): HTMLElement {
  const short = why.includes('trust') ? 'not in force: folder not trusted' : 'not in force';
  return h('span', { class: 'agenttools-held-back', title: why }, short);
}

/**
 * What changed since the folder was trusted, from the copy of the trusted settings kept in the
 * user's own file: one line per rule added or removed, mode from → to (`trust_changes`).
 */
function trustChanges(trust: ITrust): HTMLElement {
  const changes = trust.changes;
  if (!changes) {
    return h('div', { class: 'agenttools-trust-changes agenttools-file' },
      'What changed cannot be shown: the trust was recorded without a copy of the ' +
      'settings (by an earlier version). Trusting again keeps one.');
  }
  return h('div', { class: 'agenttools-trust-changes' },
    h('div', {}, `What changed since ${trust.trusted_at ? shortTime(trust.trusted_at) : 'then'}:`),
    h('ul', { class: 'agenttools-trust-change-list' }, ...changes.map(change =>
      h('li', {
        class: `agenttools-trust-change agenttools-change-${change.change}`,
        'data-change': change.change,
        'data-key': change.key,
        'data-layer': change.layer,
        title: change.file
      }, h('code', {}, change.text), ' ',
      h('span', { class: 'agenttools-file' }, change.file)))));
}

function shortPath(file: string, root: string): string {
  return root && file.startsWith(root + '/') ? file.slice(root.length + 1) : file;
}

export class PermissionsPanel extends Widget implements INotebooksHost {
  constructor(
    model: AgentToolsModel,
    kernels: KernelsModel,
    showQuestion: (kernel: IKernelInfo, questionId: string) => void
  ) {
    super();
    this.model = model;
    this.kernels = kernels;
    this._showQuestion = showQuestion;
    this.id = 'agenttools-permissions';
    this.addClass('agenttools-Panel');
    this.title.caption = 'Agent: notebooks, permissions, audit';

    this.node.append(
      h('header', { class: 'agenttools-header' },
        h('h2', {}, 'Agent'),
        this._refreshButton),
      this._error,
      this._section('Notebooks', 'agenttools-notebooks-section', this._notebooks),
      this._section('Project', 'agenttools-project-section', this._projectRow, this._summary,
        this._trust),
      this._section('Default mode', 'agenttools-modes-section', this._modes),
      this._section('Rules', 'agenttools-rules-section', this._rules, this._addForm()),
      this._section('Try a command', 'agenttools-check-section', this._checkForm(),
        this._checkResult),
      this._section('Audit log', 'agenttools-audit-section', this._auditFilters(),
        this._audit)
    );
    this._errorClose.addEventListener('click', () => {
      this._actionError = '';
      this._error.hidden = true;
    });
    this._refreshButton.addEventListener('click', () => {
      void this.model.refresh();
      void this.kernels.refresh();
      void this.loadAudit();
    });
    this._projectSelect.addEventListener('change', () => {
      this._pinned = true;
      this.selectProject(this._projectSelect.value);
    });
    model.changed.connect(this._render, this);
    kernels.changed.connect(this._renderKernels, this);
    this._render();
    this._renderKernels();
  }

  readonly model: AgentToolsModel;
  readonly kernels: KernelsModel;

  get selectedProject(): string {
    return this.model.project || this.kernels.serverProject;
  }

  /** Show the settings, rules and audit of `project` (a kernel's, or the server's own). */
  selectProject(project: string): void {
    this.model.project = project === this.kernels.serverProject ? '' : project;
    this._renderKernels();
    void this.loadAudit();
  }

  showTrust(project: string): void {
    this.selectProject(project);
    this._trust.scrollIntoView({ block: 'center' });
  }

  /** Follow the current notebook's project, unless the person chose one. */
  followProject(project: string | null): void {
    if (!this._pinned && project && project !== this.selectedProject) {
      this.selectProject(project);
    }
  }

  showQuestion(kernel: IKernelInfo, questionId: string): void {
    this._showQuestion(kernel, questionId);
  }

  dispose(): void {
    this.model.changed.disconnect(this._render, this);
    this.kernels.changed.disconnect(this._renderKernels, this);
    window.clearInterval(this._auditTimer);
    super.dispose();
  }

  protected onAfterShow(): void {
    void this.model.refresh();
    void this.kernels.refresh();
    void this.loadAudit();
    window.clearInterval(this._auditTimer);
    this._auditTimer = window.setInterval(() => {
      if (this.isVisible && !document.hidden) {
        void this.loadAudit();
      }
    }, AUDIT_REFRESH_MS);
  }

  protected onAfterHide(): void {
    window.clearInterval(this._auditTimer);
  }

  // --- the notebooks and the project ----------------------------------------------------------

  private _renderKernels(): void {
    this._notebooks.replaceChildren(renderNotebooks(this.kernels, this));
    this._syncTrust();
    const projects = this.kernels.projects;
    const selected = this.selectedProject;
    if (selected && !projects.includes(selected)) {
      projects.push(selected);
    }
    this._projectSelect.replaceChildren(...projects.map(p =>
      option(p, p === this.kernels.serverProject ? `${p} (server)` : p, p === selected)));
  }

  /**
   * A trust given or taken elsewhere (`%agent trust` in a notebook, a terminal) shows in the
   * kernels' state first (read every few seconds): re-read the settings then, once per change,
   * rather than wait for their slower refresh.
   */
  private _syncTrust(): void {
    const project = this.selectedProject;
    const agent = this.kernels.agents.find(k => k.agent?.project_dir === project)?.agent;
    const trust = this.model.settings?.trust;
    if (!agent || !trust || typeof agent.trust_pending !== 'boolean') {
      return;
    }
    const key = `${project} ${agent.trust_pending}`;
    if (agent.trust_pending !== (trust.needed && !trust.trusted) && key !== this._trustSeen) {
      this._trustSeen = key;
      void this.model.refresh();
    }
  }

  /**
   * The project's trust, from the settings answer (so `%agent trust` in a kernel or
   * `agenttools trust` in a terminal shows here at the next refresh): nothing to trust, trusted
   * (with a way to take it back), or not trusted — what is held back, and the button.
   */
  private _renderTrust(settings: ISettings): void {
    const trust = settings.trust;
    if (!trust) {
      this._trust.replaceChildren();
      return;
    }
    this._trust.dataset.trusted = String(trust.trusted);
    this._trust.dataset.needed = String(trust.needed);
    if (!trust.needed) {
      this._trust.replaceChildren(h('div', { class: 'agenttools-trust-none' },
        'Trust: nothing to trust — this folder\'s settings have no allow rules, mode or ' +
        'directories of their own.'));
      return;
    }
    if (trust.trusted) {
      const revoke = h('button', {
        class: 'agenttools-untrust-button jp-Button',
        title: 'Forget the trust: the folder\'s allow rules, mode and directories stop counting'
      }, 'Stop trusting');
      revoke.addEventListener('click', () => {
        void this._act(() => this._setTrust({ trusted: false }));
      });
      this._trust.replaceChildren(h('div', { class: 'agenttools-trusted' },
        h('span', {}, '✓ Trusted' + (trust.trusted_at ? ` since ${shortTime(trust.trusted_at)}`
          : '') + ': this folder\'s allow rules, mode and directories count.'),
        revoke));
      return;
    }
    const held = (settings.ignored ?? []).filter(item =>
      (item.layer === 'project' || item.layer === 'local') && item.why.includes('trust'));
    const button = h('button', {
      class: 'agenttools-trust-button jp-Button jp-mod-styled jp-mod-accept',
      title: `Trust ${trust.project} as its settings are now (recorded in your user settings)`
    }, trust.changed ? 'Trust again' : 'Trust this folder');
    button.addEventListener('click', () => {
      // the hash of what is shown: if the files changed meanwhile the server refuses (409)
      void this._act(() => this._setTrust({ trusted: true, sha256: trust.sha256 }));
    });
    this._trust.replaceChildren(h('div', { class: 'agenttools-untrusted' },
      h('div', { class: 'agenttools-trust-title' }, trust.changed
        ? '⚠ Changed since you trusted it: this folder\'s settings are not trusted now.'
        : '⚠ This folder\'s settings are not trusted yet.'),
      trust.changed ? trustChanges(trust) : null,
      h('div', {}, 'Its deny and ask rules count already. Not in force until you trust it:'),
      h('ul', { class: 'agenttools-held-list' }, ...held.map(item =>
        h('li', { title: item.file }, h('code', {}, heldText(item)), ' ',
          h('span', { class: 'agenttools-file' }, shortPath(item.file, settings.project_root))))),
      h('div', { class: 'agenttools-row' }, button,
        h('span', { class: 'agenttools-file' }, 'or %agent trust in the notebook'))));
  }

  private async _setTrust(body: Record<string, unknown>): Promise<void> {
    await sendJSON(TRUST_ROUTE, 'POST', body, this.model.query);
    await Promise.all([this.model.refresh(), this.kernels.refresh()]);
  }

  // --- settings: modes and rules --------------------------------------------------------------

  private _render(): void {
    const settings = this.model.settings;
    this._showError();
    if (!settings) {
      return;
    }
    const root = settings.project_root;
    this._summary.replaceChildren(
      h('code', { class: 'agenttools-project-root', title: root }, root),
      h('br'),
      h('span', {}, 'Mode of the settings files '),
      h('strong', { class: 'agenttools-effective-mode', 'data-mode': settings.mode },
        settings.mode),
      settings.mode_source
        ? h('span', { class: 'agenttools-file', title: settings.mode_source },
          ` from ${shortPath(settings.mode_source, root)}`)
        : h('span', { class: 'agenttools-file' }, ' (built-in default)')
    );
    this._renderTrust(settings);
    const heldModes = new Map((settings.ignored ?? []).filter(item => item.key === 'mode')
      .map(item => [item.layer, item] as [string, IIgnored]));

    this._modes.replaceChildren(
      ...settings.layers.map(layer => {
        const select = h('select', {
          class: 'agenttools-mode-select',
          id: `agenttools-mode-${layer.layer}`,
          'data-layer': layer.layer,
          disabled: !layer.writable,
          title: layer.writable ? layer.file : `${layer.file} (read-only)`
        });
        select.append(option('', '(not set)', layer.mode === null));
        for (const mode of settings.modes) {
          select.append(option(mode, mode, layer.mode === mode));
        }
        select.addEventListener('change', () => {
          void this._act(() =>
            this.model.setMode(layer.layer, select.value === '' ? null : select.value)
          );
        });
        const held = heldModes.get(layer.layer);
        return h('div', { class: 'agenttools-mode-row', 'data-layer': layer.layer },
          h('label', { for: select.id }, layer.layer), select,
          h('span', { class: 'agenttools-file', title: layer.file },
            shortPath(layer.file, root)),
          held ? heldBadge(held.why) : null);
      })
    );

    this._rules.replaceChildren(
      ...BEHAVIORS.map(behavior => {
        const rules = settings.rules.filter(r => r.behavior === behavior);
        const list = h('ul', { class: 'agenttools-rule-list', 'data-behavior': behavior });
        for (const rule of rules) {
          list.append(this._ruleItem(rule, root));
        }
        if (rules.length === 0) {
          list.append(h('li', { class: 'agenttools-empty' }, 'none'));
        }
        return h('div', { class: `agenttools-rule-group agenttools-${behavior}` },
          h('h4', {}, `${behavior} (${rules.length})`), list);
      })
    );
  }

  private _ruleItem(rule: IRule, root: string): HTMLElement {
    const writable = WRITABLE.includes(rule.layer);
    const remove = h('button', {
      class: 'agenttools-rule-remove jp-Button',
      title: writable ? `Remove from ${rule.file}` : 'The managed layer is read-only',
      disabled: !writable
    }, '×');
    remove.addEventListener('click', () => {
      void this._act(() => this.model.removeRule(rule));
    });
    const active = rule.active !== false;
    return h('li', {
      class: 'agenttools-rule' + (active ? '' : ' agenttools-rule-held'),
      'data-rule': rule.rule,
      'data-behavior': rule.behavior,
      'data-layer': rule.layer,
      'data-active': String(active)
    },
      h('code', { class: 'agenttools-rule-text' }, rule.rule),
      active ? null : heldBadge(rule.ignored_why ?? ''),
      h('span', { class: 'agenttools-layer' }, rule.layer),
      h('span', { class: 'agenttools-file', title: rule.file }, shortPath(rule.file, root)),
      remove);
  }

  private _addForm(): HTMLElement {
    const input = h('input', {
      class: 'agenttools-add-rule jp-mod-styled',
      type: 'text',
      placeholder: 'Bash(npm test), Read(src/**), mcp__github …',
      spellcheck: 'false'
    });
    const behavior = h('select', { class: 'agenttools-add-behavior' });
    for (const b of ['allow', 'ask', 'deny']) {
      behavior.append(option(b, b, b === 'allow'));
    }
    const layer = h('select', { class: 'agenttools-add-layer' });
    for (const l of WRITABLE) {
      layer.append(option(l, l, l === 'local'));
    }
    const button = h('button', { class: 'agenttools-add-button jp-Button', disabled: true },
      'Add');
    const status = h('div', { class: 'agenttools-add-status' });

    let seq = 0;
    const validate = async (): Promise<boolean> => {
      const mine = ++seq;
      const rule = input.value.trim();
      if (!rule) {
        status.textContent = '';
        status.dataset.ok = '';
        button.disabled = true;
        return false;
      }
      let result: IValidation;
      try {
        result = await sendJSON<IValidation>(
          'validate',
          'POST',
          { rule, behavior: behavior.value },
          this.model.query
        );
      } catch (error) {
        result = { ok: false, error: (error as Error).message };
      }
      if (mine !== seq) {
        return false; // a newer keystroke is being validated
      }
      status.dataset.ok = result.ok ? 'true' : 'false';
      status.textContent = result.ok
        ? `✓ ${result.rule}` + (result.known_tool ? '' : ' (not a built-in tool)')
        : result.error ?? 'invalid rule';
      button.disabled = !result.ok;
      return result.ok;
    };
    let timer = 0;
    input.addEventListener('input', () => {
      button.disabled = true;
      window.clearTimeout(timer);
      timer = window.setTimeout(() => void validate(), 200);
    });
    behavior.addEventListener('change', () => void validate());
    const add = async (): Promise<void> => {
      if (!(await validate())) {
        return;
      }
      const ok = await this._act(() =>
        this.model.addRule(layer.value, behavior.value, input.value.trim())
      );
      if (ok) {
        input.value = '';
        status.textContent = '';
        button.disabled = true;
      }
    };
    button.addEventListener('click', () => void add());
    input.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        void add();
      }
    });
    return h('div', { class: 'agenttools-add' },
      input, h('div', { class: 'agenttools-row' }, behavior, layer, button), status);
  }

  // --- try a command ----------------------------------------------------------------------------

  private _checkForm(): HTMLElement {
    const tool = h('select', { class: 'agenttools-check-tool' });
    for (const t of TOOLS) {
      tool.append(option(t, t, t === 'Bash'));
    }
    const input = h('input', {
      class: 'agenttools-check-input jp-mod-styled',
      type: 'text',
      placeholder: TOOL_HINT.Bash,
      spellcheck: 'false'
    });
    tool.addEventListener('change', () => {
      input.placeholder = TOOL_HINT[tool.value] ?? '';
    });
    const mode = h('select', { class: 'agenttools-check-mode' });
    mode.append(option('', 'project mode', true));
    for (const m of ['default', 'accept_edits', 'explore', 'bypass', 'dont_ask']) {
      mode.append(option(m, m, false));
    }
    const button = h('button', { class: 'agenttools-check-button jp-Button' }, 'Check');
    const run = async (): Promise<void> => {
      const body: Record<string, unknown> = { tool: tool.value, input: input.value };
      if (mode.value) {
        body.mode = mode.value;
      }
      try {
        this._showDecision(await sendJSON<IDecision>('check', 'POST', body, this.model.query));
      } catch (error) {
        this._checkResult.replaceChildren(
          h('div', { class: 'agenttools-check-error' }, (error as Error).message)
        );
      }
    };
    button.addEventListener('click', () => void run());
    input.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        void run();
      }
    });
    return h('div', { class: 'agenttools-check' },
      h('div', { class: 'agenttools-row' }, tool, mode), input, button);
  }

  private _showDecision(decision: IDecision): void {
    const rows = decision.trace.map(step =>
      h('tr', { class: 'agenttools-trace-step', 'data-step': step.step },
        h('td', {}, step.step),
        h('td', { class: `agenttools-outcome agenttools-${step.outcome.replace(/\s+/g, '-')}` },
          step.outcome),
        h('td', {}, step.detail))
    );
    this._checkResult.replaceChildren(h('div', {},
      h('div', { class: 'agenttools-decision', 'data-behavior': decision.behavior },
        h('span', { class: `agenttools-badge agenttools-${decision.behavior}` },
          decision.behavior),
        decision.bypass_immune ? h('span', { class: 'agenttools-safety' }, ' safety') : null,
        h('span', {}, ` in ${decision.mode} mode`),
        decision.step ? h('span', {}, ` at step ${decision.step}`) : null),
      decision.reason ? h('div', { class: 'agenttools-reason' }, decision.reason) : null,
      decision.rule
        ? h('div', { class: 'agenttools-decision-rule' }, 'rule ',
          h('code', {}, decision.rule),
          decision.rule_source
            ? h('span', { class: 'agenttools-file', title: decision.rule_source },
              ` ${shortPath(decision.rule_source, this.model.settings?.project_root ?? '')}`)
            : '')
        : null,
      h('table', { class: 'agenttools-trace' }, h('tbody', {}, ...rows))
    ));
  }

  // --- audit log --------------------------------------------------------------------------------

  private _auditFilters(): HTMLElement {
    this._auditTool.placeholder = 'tool';
    this._auditBehavior.append(option('', 'any verdict', true));
    for (const b of ['allow', 'ask', 'deny', 'passthrough']) {
      this._auditBehavior.append(option(b, b, false));
    }
    const button = h('button', { class: 'agenttools-audit-refresh jp-Button' }, 'Show');
    button.addEventListener('click', () => void this.loadAudit());
    this._auditTool.addEventListener('keydown', event => {
      if (event.key === 'Enter') {
        void this.loadAudit();
      }
    });
    this._auditBehavior.addEventListener('change', () => void this.loadAudit());
    this._auditAgent.append(option('', 'any agent', true));
    for (const a of AGENTS) {
      this._auditAgent.append(option(a, a, false));
    }
    this._auditAgent.addEventListener('change', () => void this.loadAudit());
    return h('div', { class: 'agenttools-row agenttools-audit-filters' }, this._auditTool,
      this._auditBehavior, this._auditAgent, button);
  }

  async loadAudit(): Promise<void> {
    const query: Record<string, string> = { limit: '50', ...this.model.query };
    if (this._auditTool.value.trim()) {
      query.tool = this._auditTool.value.trim();
    }
    if (this._auditBehavior.value) {
      query.behavior = this._auditBehavior.value;
    }
    if (this._auditAgent.value) {
      query.agent = this._auditAgent.value;
    }
    let audit: IAudit;
    try {
      audit = await requestAPI<IAudit>('audit', {}, query);
    } catch (error) {
      this._audit.replaceChildren(
        h('div', { class: 'agenttools-check-error' }, (error as Error).message)
      );
      return;
    }
    if (audit.entries.length === 0) {
      this._audit.replaceChildren(h('div', { class: 'agenttools-empty' }, 'no entries'));
      return;
    }
    this._audit.replaceChildren(
      h('table', { class: 'agenttools-audit-table' },
        h('tbody', {}, ...audit.entries.map(e =>
          h('tr', {
            class: 'agenttools-audit-row',
            'data-tool': e.tool ?? '',
            'data-behavior': e.behavior ?? '',
            'data-agent': e.agent ?? ''
          },
            // who asked: the agent (agenttools, or a coding agent through its hook) and user
            h('td', { title: `${e.time ?? ''} · agent ${e.agent ?? '?'} · user ${e.user ?? '?'}` },
              (e.time ?? '').slice(11, 19),
              h('div', { class: 'agenttools-audit-who' },
                h('span', { class: 'agenttools-audit-agent' }, e.agent ?? ''),
                e.user ? ` · ${e.user}` : '')),
            h('td', {}, e.tool ?? ''),
            h('td', { class: 'agenttools-audit-input', title: String(e.input ?? '') },
              String(e.input ?? '')),
            h('td', {},
              e.kind === 'outcome'
                ? h('span', { class: `agenttools-badge agenttools-outcome-${e.state ?? ''}` },
                  `ran: ${e.state ?? '?'}`)
                : h('span', { class: `agenttools-badge agenttools-${e.behavior}` },
                  e.answer ? `${e.behavior} → ${e.answer}` : e.behavior ?? '')),
            h('td', { title: e.rule_source ?? '' }, e.rule ?? e.step ?? ''))
        )))
    );
  }

  // --- helpers ----------------------------------------------------------------------------------

  private _section(title: string, cls: string, ...content: HTMLElement[]): HTMLElement {
    return h('section', { class: `agenttools-section ${cls}` }, h('h3', {}, title), ...content);
  }

  private async _act(action: () => Promise<void>): Promise<boolean> {
    try {
      await action();
      this._actionError = '';
      this._showError();
      return true;
    } catch (error) {
      // kept until the next action succeeds or the person closes it: the refresh below
      // re-renders, and used to wipe the message before anyone could read it
      this._actionError = (error as Error).message;
      this._showError();
      await this.model.refresh().catch(() => undefined);
      return false;
    }
  }

  /**
   * The last action's error, else the settings' own (a file that does not parse). It sticks
   * to the top of the panel's visible part (base.css), wherever the person scrolled to.
   */
  private _showError(): void {
    const message = this._actionError || this.model.error;
    this._errorText.textContent = message;
    this._error.hidden = !message;
  }

  private _showQuestion: (kernel: IKernelInfo, questionId: string) => void;
  private _pinned = false;
  private _trustSeen = '';
  private _auditTimer = 0;
  private _notebooks = h('div', { class: 'agenttools-notebooks' });
  private _projectSelect = h('select', { class: 'agenttools-project-select' });
  private _projectRow = h('div', { class: 'agenttools-row' }, this._projectSelect);
  private _trust = h('div', { class: 'agenttools-trust' });
  private _refreshButton = h('button', {
    class: 'agenttools-refresh jp-Button',
    title: 'Re-read the settings files and the audit log'
  }, '⟳');
  private _actionError = '';
  private _errorText = h('span', { class: 'agenttools-error-text' });
  private _errorClose = h('button', {
    class: 'agenttools-error-close jp-Button jp-mod-minimal',
    title: 'Close this message'
  }, '×');
  private _error = h('div', { class: 'agenttools-error', role: 'alert', hidden: true },
    this._errorText, this._errorClose);
  private _summary = h('div', { class: 'agenttools-summary' });
  private _modes = h('div', { class: 'agenttools-modes' });
  private _rules = h('div', { class: 'agenttools-rules' });
  private _checkResult = h('div', { class: 'agenttools-check-result' });
  private _auditTool = h('input', { class: 'agenttools-audit-tool jp-mod-styled', type: 'text' });
  private _auditBehavior = h('select', { class: 'agenttools-audit-behavior' });
  private _auditAgent = h('select', { class: 'agenttools-audit-agent-filter' });
  private _audit = h('div', { class: 'agenttools-audit' });
}
