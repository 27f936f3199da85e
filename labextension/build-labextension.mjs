// Build the prebuilt extension with node alone. `jupyter labextension build` would need Python
// with jupyterlab importable, which pip's isolated build environment does not have; the node
// builder only needs the core package.json of the targeted JupyterLab, which
// @jupyterlab/core-meta ships (as core.package.json).
import { copyFileSync, mkdirSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const corePath = 'node_modules/.agenttools-core';
mkdirSync(corePath, { recursive: true });
copyFileSync('node_modules/@jupyterlab/core-meta/core.package.json', `${corePath}/package.json`);
const builder = 'node_modules/@jupyterlab/builder/lib/build-labextension.js';
const args = [builder, '--core-path', corePath, ...process.argv.slice(2), '.'];
const result = spawnSync(process.execPath, args, { stdio: 'inherit' });
process.exit(result.status ?? 1);
