// Starts the real `forkscope serve` on 127.0.0.1:0 with a temporary data directory, waits until it
// listens (and, with the demo data, until the first syncs have stored their analyses), and stops it.
import { spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync, existsSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
export const ADMIN_TOKEN = 'web-e2e-admin-token';
const STARTUP_LIMIT_MS = 60_000;  // a bound on waiting, not an assertion on speed
const SYNC_LIMIT_MS = 180_000;

export function binaryPath() {
  return process.env.FORKSCOPE_BINARY || join(repoRoot, 'build', 'forkscope');
}

async function waitFor(what, limitMs, probe) {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(100);
  }
}

export class Daemon {
  constructor(child, dataDir, url, logPath) {
    this.child = child;
    this.dataDir = dataDir;
    this.url = url;
    this.logPath = logPath;
  }

  async api(method, path, { body, token = ADMIN_TOKEN } = {}) {
    const headers = { Authorization: `Bearer ${token}` };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(this.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: res.status, json, text };
  }

  // Until every registered fork has an analysis and no sync is running. A fork still without one
  // when nothing runs is synced again (twice at most): the port file is written just before the
  // daemon queues the first syncs.
  async waitForSyncs(limitMs = SYNC_LIMIT_MS) {
    const retries = new Map();
    await waitFor('the first syncs', limitMs, async () => {
      const forks = await this.api('GET', '/api/v1/forks');
      const tasks = await this.api('GET', '/api/v1/tasks');
      if (forks.status !== 200 || tasks.status !== 200 || forks.json.forks.length === 0) return false;
      if (tasks.json.tasks.length > 0) return false;
      const unsynced = forks.json.forks.filter((f) => f.latest_analysis_id === null);
      for (const f of unsynced) {
        const n = retries.get(f.name) || 0;
        if (n >= 2) throw new Error(`the sync of ${f.name} keeps failing:\n${this.log()}`);
        retries.set(f.name, n + 1);
        await this.api('POST', `/api/v1/forks/${encodeURIComponent(f.name)}/sync`);
      }
      return unsynced.length === 0;
    });
  }

  async waitForTask(id, limitMs = SYNC_LIMIT_MS) {
    return waitFor(`task ${id}`, limitMs, async () => {
      const task = await this.api('GET', `/api/v1/tasks/${id}`);
      return task.json && (task.json.state === 'succeeded' || task.json.state === 'failed') ? task.json : null;
    });
  }

  log() {
    return existsSync(this.logPath) ? readFileSync(this.logPath, 'utf8') : '';
  }

  async stop() {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      this.child.kill('SIGTERM');
      const killed = await Promise.race([exited.then(() => true), sleep(15_000).then(() => false)]);
      if (!killed) {
        this.child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

// options: demo (register the demo forks and wait for their syncs), args (extra serve flags)
export async function startDaemon({ demo = true, args = [], waitForSyncs = demo } = {}) {
  const binary = binaryPath();
  if (!existsSync(binary)) throw new Error(`${binary} does not exist: build it first (make build)`);
  const dataDir = mkdtempSync(join(tmpdir(), 'forkscope-web-'));
  const portFile = join(dataDir, 'port');
  const logPath = join(dataDir, 'daemon.log');
  const log = openSync(logPath, 'a');
  // One sync worker: two first syncs of forks sharing an upstream race to create its mirror on this
  // branch's sync service (the loser fails and leaves a broken mirror behind).
  const argv = ['serve', '--listen', '127.0.0.1:0', '--port-file', portFile, '--data-dir', dataDir, '--workers', '1',
    ...(demo ? ['--demo'] : []), ...args];
  const child = spawn(binary, argv, { env: { ...process.env, FORKSCOPE_ADMIN_TOKEN: ADMIN_TOKEN }, stdio: ['ignore', log, log] });
  closeSync(log);
  const exited = new Promise((r) => child.once('exit', (code) => r(code)));
  const port = await Promise.race([
    waitFor('the daemon to listen', STARTUP_LIMIT_MS, async () => {
      if (!existsSync(portFile)) return null;
      const text = readFileSync(portFile, 'utf8').trim();
      return /^\d+$/.test(text) ? Number(text) : null;
    }),
    exited.then((code) => {
      throw new Error(`forkscope serve exited with ${code}:\n${readFileSync(logPath, 'utf8')}`);
    }),
  ]);
  const daemon = new Daemon(child, dataDir, `http://127.0.0.1:${port}`, logPath);
  if (waitForSyncs) await daemon.waitForSyncs();
  return daemon;
}
