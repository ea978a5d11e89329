import { Agent, interceptors, request, type Dispatcher } from 'undici';

/**
 * File fetching during processing. `simulated` (the default) decides by rule so that no test or demo needs the
 * network: a path containing "fail" cannot be fetched. `real` downloads the file over HTTP(S).
 * Preflight is simulated in both modes (docs/emulator.md).
 */
export type FetchMode = 'simulated' | 'real';
export const FETCH_MODES: readonly FetchMode[] = ['simulated', 'real'];

export interface FetchedFile {
  ok: boolean;
  /** Why it failed, in words for `errors` and the Order Errored postback. */
  problem?: string;
  bytes?: number;
  /** The first bytes, for the preflight check. */
  head?: Buffer;
}

export interface FileFetcher {
  fetch(url: string): Promise<FetchedFile>;
  preflight(url: string, file: FetchedFile): string | undefined;
  close(): Promise<void>;
}

export function createFileFetcher(mode: FetchMode, timeoutMs: number): FileFetcher {
  return mode === 'real' ? new RealFetcher(timeoutMs) : new SimulatedFetcher();
}

class SimulatedFetcher implements FileFetcher {
  async fetch(url: string): Promise<FetchedFile> {
    if (/fail/i.test(url)) return { ok: false, problem: 'HTTP 404 (simulated: the path contains "fail")' };
    return { ok: true };
  }

  preflight(url: string): string | undefined {
    return /preflight-error/i.test(url) ? 'preflight failed (simulated: the path contains "preflight-error")' : undefined;
  }

  async close(): Promise<void> {}
}

const HEAD_BYTES = 8;

class RealFetcher implements FileFetcher {
  private readonly dispatcher: Dispatcher;

  constructor(private readonly timeoutMs: number) {
    this.dispatcher = new Agent({ connectTimeout: timeoutMs, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }).compose(
      interceptors.redirect({ maxRedirections: 5 }),
    );
  }

  async fetch(url: string): Promise<FetchedFile> {
    try {
      const res = await request(url, {
        method: 'GET',
        dispatcher: this.dispatcher,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (res.statusCode < 200 || res.statusCode > 299) {
        await res.body.dump();
        return { ok: false, problem: `HTTP ${res.statusCode}` };
      }
      let bytes = 0;
      const head: Buffer[] = [];
      let headLength = 0;
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        bytes += chunk.length;
        if (headLength < HEAD_BYTES) {
          head.push(chunk.subarray(0, HEAD_BYTES - headLength));
          headLength += Math.min(chunk.length, HEAD_BYTES - headLength);
        }
      }
      return { ok: true, bytes, head: Buffer.concat(head) };
    } catch (error) {
      const err = error as Error & { code?: string };
      if (err.name === 'TimeoutError' || err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT') {
        return { ok: false, problem: `no answer within ${this.timeoutMs} ms` };
      }
      return { ok: false, problem: err.code ? `${err.code} (${err.message})` : err.message };
    }
  }

  /** A real but small check: the file is not empty, and a `.pdf` path holds a PDF. */
  preflight(url: string, file: FetchedFile): string | undefined {
    if (file.bytes === 0) return 'preflight failed: the file is empty';
    const pathname = URL.canParse(url) ? new URL(url).pathname : url;
    if (/\.pdf$/i.test(pathname) && !file.head?.subarray(0, 5).equals(Buffer.from('%PDF-'))) {
      return 'preflight failed: the file is not a PDF (it does not start with %PDF-)';
    }
    return undefined;
  }

  async close(): Promise<void> {
    // A fetch in flight is abandoned: the emulator is stopping and its orders go with it.
    await this.dispatcher.destroy();
  }
}
