/**
 * The "Notebooks" part of the panel: one card per running kernel that loaded the extension —
 * its notebook, project, effective mode (a session override says so), model, whether its
 * conversation carries on, its session rules and the questions it waits on (each with a
 * button that shows the question's card in the notebook).
 */
import { h } from './dom';
import { IKernelInfo, KernelsModel } from './kernels';

export interface INotebooksHost {
  /** Open the notebook and bring the question's card into view. */
  showQuestion(kernel: IKernelInfo, questionId: string): void;
  /** Show this project's settings, rules and audit below. */
  selectProject(project: string): void;
  readonly selectedProject: string;
  /** Show this project's settings with its trust (and Trust button) in view. */
  showTrust(project: string): void;
}

function basename(path: string): string {
  const parts = path.split('/');
  return parts[parts.length - 1] || path;
}

export function renderNotebooks(model: KernelsModel, host: INotebooksHost): HTMLElement {
  const agents = model.agents;
  if (model.error && agents.length === 0) {
    return h('div', { class: 'agenttools-check-error' }, model.error);
  }
  if (agents.length === 0) {
    const others = model.kernels.length;
    return h('div', { class: 'agenttools-empty' },
      others
        ? `${others} kernel${others === 1 ? '' : 's'} running, none with the agent: ` +
          'run %load_ext jupyter_agenttools in a notebook.'
        : 'No kernel is running. Open a notebook and run %load_ext jupyter_agenttools.');
  }
  return h('div', { class: 'agenttools-kernels' }, ...agents.map(k => kernelCard(k, host)));
}

/** The model labels of a kernel without a real model (extension.py `model_label`). */
const NO_MODEL = /^(none yet|scripted, empty)/;

interface IUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number | null;
  model_calls: number;
}

function usageText(usage: IUsage): string {
  const cost = usage.cost_usd === null || usage.cost_usd === undefined
    ? '' : `, $${usage.cost_usd.toFixed(4)}`;
  return `${usage.total_tokens} tokens (${usage.prompt_tokens} in, ` +
    `${usage.completion_tokens} out)${cost}, ${usage.model_calls} model call` +
    (usage.model_calls === 1 ? '' : 's');
}

/** Tokens and cost the model reported (the `usage` field of the kernel's state). */
function usageLine(raw: unknown): HTMLElement | null {
  const usage = raw as { last_run: IUsage | null; total: IUsage } | undefined;
  if (!usage || !usage.total || !usage.total.model_calls) {
    return null;
  }
  return h('div', {
    class: 'agenttools-kernel-line agenttools-usage',
    title: usage.last_run ? `last run: ${usageText(usage.last_run)}` : ''
  }, 'usage ', h('span', {}, usageText(usage.total)));
}

/** "Review and trust…": shows the project below, where its Trust button is. */
function trustLink(project: string, host: INotebooksHost): HTMLElement {
  const link = h('button', {
    class: 'agenttools-link agenttools-review-trust',
    title: `Show the settings of ${project} and what trusting it would turn on`
  }, 'Review and trust…');
  link.addEventListener('click', () => host.showTrust(project));
  return link;
}

function kernelCard(kernel: IKernelInfo, host: INotebooksHost): HTMLElement {
  const agent = kernel.agent!;
  const name = kernel.notebook ? basename(kernel.notebook) : `kernel ${kernel.id.slice(0, 8)}`;
  const selected = host.selectedProject === agent.project_dir;
  const mode = h('span', {
    class: `agenttools-badge agenttools-mode-badge agenttools-mode-${agent.mode}`,
    'data-mode': agent.mode
  }, agent.mode);
  const modeLine = h('div', { class: 'agenttools-kernel-mode' }, 'mode ', mode,
    agent.session_override
      ? h('span', { class: 'agenttools-override', title: agent.mode_source },
        ` set in this kernel (the settings say ${agent.settings_mode})`)
      : h('span', { class: 'agenttools-file' }, ` ${agent.mode_source}`));
  const project = h('button', {
    class: 'agenttools-link agenttools-kernel-project',
    title: selected ? 'These settings are shown below' : `Show the settings of ${agent.project_dir}`
  }, agent.project_dir);
  project.addEventListener('click', () => host.selectProject(agent.project_dir));
  const prompts = agent.conversation?.prompts ?? 0;
  const parts: (HTMLElement | null)[] = [
    h('div', { class: 'agenttools-kernel-head' },
      h('strong', { title: kernel.notebook ?? kernel.id }, name),
      h('span', { class: `agenttools-kernel-state agenttools-state-${kernel.execution_state}` },
        kernel.execution_state)),
    h('div', { class: 'agenttools-kernel-line' }, 'project ', project),
    modeLine,
    agent.trust_pending
      ? h('div', { class: 'agenttools-kernel-untrusted' },
        (agent.trust_changed
          ? '⚠ This project\'s settings changed since you trusted them: '
          : '⚠ This project\'s settings are not trusted yet: ') +
        'their allow rules, mode and directories do not count. ',
        trustLink(agent.project_dir, host))
      : null,
    h('div', { class: 'agenttools-kernel-line' }, 'model ',
      h('code', { class: 'agenttools-kernel-model' }, agent.model)),
    NO_MODEL.test(agent.model)
      ? h('div', { class: 'agenttools-model-hint' },
        'No real model: the agent only says how to set one. In the notebook run ',
        h('code', {}, '%agent model openai:gpt-4.1-mini'),
        ' (key in OPENAI_API_KEY), or add ',
        h('code', {}, '--base-url http://localhost:11434/v1'),
        ' for a local server (README: "Use a real model").')
      : null,
    usageLine(agent.usage),
    prompts
      ? h('div', { class: 'agenttools-conversation-note' },
        `conversation carries on (${prompts} prompt${prompts === 1 ? '' : 's'}); ` +
        '%agent reset starts afresh')
      : null
  ];
  if (agent.session_rules.length) {
    parts.push(h('div', { class: 'agenttools-kernel-line' }, 'session rules'),
      h('ul', { class: 'agenttools-session-rules' }, ...agent.session_rules.map(r =>
        h('li', { 'data-behavior': r.behavior },
          h('span', { class: `agenttools-badge agenttools-${r.behavior}` }, r.behavior), ' ',
          h('code', {}, r.rule)))));
  }
  if (agent.pending.length) {
    parts.push(h('ul', { class: 'agenttools-pending' }, ...agent.pending.map(q => {
      const show = h('button', { class: 'agenttools-show-question jp-Button' }, 'Show');
      show.addEventListener('click', () => host.showQuestion(kernel, q.id));
      return h('li', { class: 'agenttools-pending-item', 'data-ask': q.id },
        h('div', {},
          h('span', { class: 'agenttools-badge agenttools-ask' }, q.safety ? 'safety' : 'asks'),
          ' ', h('strong', {}, q.title)),
        h('div', { class: 'agenttools-why' }, q.why),
        h('div', { class: 'agenttools-row' },
          h('span', { class: 'agenttools-file' }, `${q.run} · ${q.id}`), show));
    })));
  }
  return h('div', {
    class: 'agenttools-kernel' + (selected ? ' agenttools-kernel-selected' : ''),
    'data-kernel': kernel.id,
    'data-notebook': kernel.notebook ?? ''
  }, ...parts);
}
