/**
 * What a pipeline costs, read from outside it: CPU time of its processes (/proc/<pid>/stat), PostgreSQL transactions
 * (pg_stat_database.xact_commit of the database), Redis commands and bytes in (INFO commandstats / stats). The
 * PostgreSQL and Redis counters are the server's: on a machine where others use the same servers, their traffic
 * counts too (run the comparison on a quiet machine).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import type pg from 'pg';

/** Linux's USER_HZ; /proc/<pid>/stat counts CPU time in these ticks. */
const CLOCK_TICKS_PER_SECOND = 100;

/** User + system CPU milliseconds a process has used so far (NaN where /proc is not there). */
export function cpuMs(pid: number | undefined): number {
  if (pid === undefined) return NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return NaN;
  }
}

/**
 * CPU ms of every process whose command name is one of `names` (`postgres`, `redis-server`): the servers the pipelines
 * share, whatever their pids (PostgreSQL forks a backend per connection). A backend that exited between two readings
 * takes its time with it, so read both ends while the pipelines' connections are open.
 */
export function serverCpuMs(names: readonly string[]): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (!names.includes(name)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
    } catch {
      // gone between the listing and the read
    }
  }
  return total;
}

export async function xactCommits(client: pg.Client): Promise<number> {
  // Each backend reports its counts when it goes idle, at most once a second: the caller waits before reading.
  await client.query('SELECT pg_stat_clear_snapshot()');
  const { rows } = await client.query<{ n: string }>('SELECT xact_commit AS n FROM pg_stat_database WHERE datname = current_database()');
  return Number(rows[0]?.n ?? NaN);
}

export async function redisCounters(redis: Redis): Promise<{ commands: number; bytesIn: number }> {
  const commandstats = await redis.info('commandstats');
  let commands = 0;
  for (const m of commandstats.matchAll(/calls=(\d+)/g)) commands += Number(m[1]);
  const stats = await redis.info('stats');
  const bytesIn = Number(/total_net_input_bytes:(\d+)/.exec(stats)?.[1] ?? NaN);
  return { commands, bytesIn };
}

/** Starts `bench/bare-pipeline.ts <role>` as its own process and waits until it serves. */
export async function startBare(root: string, role: 'web' | 'worker', env: Record<string, string>): Promise<ChildProcess> {
  const child = fork(join(root, 'bench/bare-pipeline.ts'), [role], { execArgv: ['--import', 'tsx'], env, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  await new Promise<void>((resolve, reject) => {
    child.once('message', () => resolve());
    child.once('exit', (code) => reject(new Error(`the bare ${role} process exited (${code}) before it was ready`)));
  });
  return child;
}
