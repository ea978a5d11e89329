/**
 * Pieces of `npm run chaos` that its short versions in the test suite share: a Redis of its own with an append-only
 * file that can be restarted in place, a PostgreSQL of its own that can be crashed and restarted, and a postback relay that forwards every trigger delivery to the app and
 * replays it later, several times, in shuffled order.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, pingRedis } from '../src/local-redis.js';

export { freePort } from '../src/local-redis.js';
export { seededRandom } from '../src/dev/emulator/ids.js';

/**
 * A redis-server with `appendonly yes`, as docs/operations.md asks for production. `appendfsync always` so that even
 * a SIGKILL loses no acknowledged write; `restart()` stops it (SIGTERM, which also flushes the AOF) and starts it
 * again on the same port and directory, so clients see a real outage and reconnect to the same data.
 */
export class AofRedis {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), 'pb-chaos-redis-'));

  private constructor(readonly port: number) {}

  static async start(): Promise<AofRedis> {
    const redis = new AofRedis(await freePort());
    await redis.launch();
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  private async launch(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--dir', this.dir];
    args.push('--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction');
    this.child = spawn('redis-server', args, { stdio: 'ignore' });
    // The AOF is read before the server answers PING, so an answer means the data is back.
    for (let i = 0; i < 200; i++) {
      if (await pingRedis(this.url, 250)) return;
      await sleep(25);
    }
    throw new Error(`redis-server on port ${this.port} did not start (is redis-server installed?)`);
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  /** Down for `downMs`, then back with the same data. `onDown` is called once the server has exited. */
  async restart(downMs = 1_000, signal: NodeJS.Signals = 'SIGTERM', onDown?: () => void): Promise<void> {
    await this.stop(signal);
    onDown?.();
    await sleep(downMs);
    await this.launch();
  }
}

export interface RelayStats {
  received: number;
  forwarded: number;
  replayed: number;
  replayFailures: number;
  pendingReplays: number;
}

/**
 * Stands between the emulator's triggers and the app's postback route. Each delivery is forwarded at once (the
 * emulator sees the app's answer, so a 503 during a Redis restart makes it retry) and, once the app accepted it,
 * replayed `replays` more times at random moments within `replayWindowMs`: late, repeated and out of order.
 */
export class PostbackRelay {
  private server: Server | undefined;
  private readonly timers = new Set<NodeJS.Timeout>();
  readonly stats: RelayStats = { received: 0, forwarded: 0, replayed: 0, replayFailures: 0, pendingReplays: 0 };
  url = '';

  constructor(
    private readonly target: string,
    private readonly options: { replays: number; replayWindowMs: number; random?: () => number },
  ) {}

  async start(): Promise<void> {
    this.server = createHttpServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers: Record<string, string> = { 'content-type': req.headers['content-type'] ?? 'application/json' };
        if (req.headers.authorization) headers.authorization = req.headers.authorization;
        this.stats.received += 1;
        void this.send(body, headers).then(
          (status) => {
            if (status >= 200 && status < 300) {
              this.stats.forwarded += 1;
              this.scheduleReplays(body, headers);
            }
            res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
          },
          () => res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"app unreachable"}'),
        );
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/relay`;
  }

  private async send(body: string, headers: Record<string, string>): Promise<number> {
    const res = await fetch(this.target, { method: 'POST', body, headers, signal: AbortSignal.timeout(10_000) });
    await res.arrayBuffer();
    return res.status;
  }

  private scheduleReplays(body: string, headers: Record<string, string>): void {
    const random = this.options.random ?? Math.random;
    for (let i = 0; i < this.options.replays; i++) {
      this.stats.pendingReplays += 1;
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        void this.replay(body, headers);
      }, Math.floor(random() * this.options.replayWindowMs));
      this.timers.add(timer);
    }
  }

  private async replay(body: string, headers: Record<string, string>): Promise<void> {
    // A replay the app refuses (Redis restarting) is sent again, as the print service's retries would.
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        const status = await this.send(body, headers);
        if (status >= 200 && status < 300) {
          this.stats.replayed += 1;
          this.stats.pendingReplays -= 1;
          return;
        }
      } catch {
        // the app is restarting or unreachable for a moment
      }
      await sleep(200);
    }
    this.stats.replayFailures += 1;
    this.stats.pendingReplays -= 1;
  }

  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/**
 * A PostgreSQL cluster of its own (initdb in a temporary directory, trust auth, 127.0.0.1 on a free port), so the
 * chaos run can crash it without touching the machine's server. `restart()` stops it with SIGQUIT, PostgreSQL's
 * immediate shutdown (no checkpoint, as a crash: it recovers from its WAL at the next start), and starts it again on
 * the same port and directory. As root it runs as the `postgres` user, which PostgreSQL requires.
 */
export class PrivatePostgres {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), 'pb-chaos-pg-'));
  private readonly bin: string;
  private readonly ids: { uid?: number; gid?: number };

  private constructor(readonly port: number) {
    const versions = readdirSync('/usr/lib/postgresql').sort((a, b) => Number(a) - Number(b));
    if (versions.length === 0) throw new Error('no PostgreSQL server under /usr/lib/postgresql (apt-get install postgresql)');
    this.bin = `/usr/lib/postgresql/${versions.at(-1)!}/bin`;
    if (process.getuid?.() === 0) {
      const passwd = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith('postgres:'));
      if (!passwd) throw new Error('running as root needs a postgres user to run PostgreSQL as');
      const [, , uid, gid] = passwd.split(':');
      this.ids = { uid: Number(uid), gid: Number(gid) };
      chownSync(this.dir, this.ids.uid!, this.ids.gid!);
    } else {
      this.ids = {};
    }
  }

  static async start(): Promise<PrivatePostgres> {
    const pg = new PrivatePostgres(await freePort());
    await new Promise<void>((resolve, reject) => {
      const init = spawn(`${pg.bin}/initdb`, ['-D', join(pg.dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync'], { stdio: 'ignore', ...pg.ids });
      init.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`initdb exited with ${code}`))));
    });
    await pg.launch();
    return pg;
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  private async launch(): Promise<void> {
    this.child = spawn(
      `${this.bin}/postgres`,
      ['-D', join(this.dir, 'data'), '-p', String(this.port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${this.dir}`, '-c', 'max_connections=200'],
      { stdio: 'ignore', ...this.ids },
    );
    for (let i = 0; i < 400; i++) {
      if (await new Promise<boolean>((resolve) => spawn(`${this.bin}/pg_isready`, ['-h', '127.0.0.1', '-p', String(this.port), '-q']).once('exit', (code) => resolve(code === 0)))) return;
      await sleep(50);
    }
    throw new Error(`PostgreSQL on port ${this.port} did not start`);
  }

  async stop(signal: NodeJS.Signals = 'SIGINT'): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  /** Down for `downMs` after an immediate shutdown (as a crash), then back with the same data. */
  async restart(downMs = 2_000): Promise<void> {
    await this.stop('SIGQUIT');
    await sleep(downMs);
    await this.launch();
  }
}
