import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, watch, type FSWatcher } from 'node:fs';
import { basename } from 'node:path';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { formatFileProblem, MappingLoadError, mappingProblem, type FileProblem } from './errors.js';
import { findConflicts, listMappingFiles, loadMappingText, selectMapping, type LoadedMapping } from './load.js';
import { mapOrder, type MapOptions, type MapResult } from './map-order.js';

/**
 * The mappings a running app uses, kept current while merchants edit files. A changed file is reloaded; a file that
 * no longer loads (or starts claiming a store another file already serves) keeps its last good version in use and
 * its problems are reported (log, `problems()`, the `change` event for the admin page). A deleted file stops
 * serving its stores.
 *
 * Changes are noticed through `fs.watch` on the directory, with a polling rescan as a fallback for file systems
 * where watching is unreliable (network mounts, some containers). A rescan only reloads files whose text changed.
 */

export interface RegistryChange {
  /** Files whose text changed (or that appeared or disappeared) in this rescan. */
  files: string[];
  /** Problems in force after the rescan, across all files. */
  problems: FileProblem[];
  /** The stores the changed files served before or serve now (`*` among them when a catch-all file changed). */
  shops: string[];
}

interface FileState {
  text: string;
  /** The version in use: the latest text that loaded without problems. */
  good?: LoadedMapping;
  problems: FileProblem[];
}

export interface MappingRegistryOptions {
  dir: string;
  logger?: Logger;
  /** Polling rescan interval; 0 turns polling off. */
  pollMs?: number;
  /** Delay that gathers the several events an editor's save produces into one rescan. */
  debounceMs?: number;
  /** Rules every mapped order follows whatever its file says (artwork URL hosts). */
  mapOptions?: MapOptions;
}

export class MappingRegistry extends EventEmitter<{ change: [RegistryChange] }> {
  private readonly states = new Map<string, FileState>();
  /** Stores' own mappings (saved in the app): each serves its store before any file does. */
  private readonly storeMappings = new Map<string, { version: number; mapping: LoadedMapping }>();
  private watcher: FSWatcher | undefined;
  private poller: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private readonly logger: Logger;

  constructor(private readonly options: MappingRegistryOptions) {
    super();
    this.logger = options.logger ?? silentLogger;
  }

  /** Loads every file now (synchronously) and returns the problems found. */
  load(): FileProblem[] {
    this.rescan();
    return this.problems();
  }

  /**
   * Loads every file and throws a `MappingLoadError` listing all problems if any file has one: for a start-up that
   * should refuse to run on broken mappings rather than hold every order.
   */
  loadStrict(): void {
    const problems = this.load();
    if (problems.length > 0) throw new MappingLoadError(problems);
  }

  /** Loads, then follows changes until `close()`. */
  start(): FileProblem[] {
    const problems = this.load();
    try {
      this.watcher = watch(this.options.dir, { persistent: false }, () => this.schedule());
      this.watcher.on('error', (error) => this.logger.warn({ err: error }, 'mapping directory watch failed; polling only'));
    } catch (error) {
      this.logger.warn({ err: error }, 'cannot watch the mapping directory; polling only');
    }
    const pollMs = this.options.pollMs ?? 2_000;
    if (pollMs > 0) {
      this.poller = setInterval(() => this.rescan(), pollMs);
      this.poller.unref();
    }
    return problems;
  }

  close(): void {
    this.watcher?.close();
    this.watcher = undefined;
    if (this.poller) clearInterval(this.poller);
    if (this.debounce) clearTimeout(this.debounce);
    this.poller = undefined;
    this.debounce = undefined;
  }

  /** The server's rules every mapped order follows (pass them to `mapOrder` when mapping with `forShop`'s result). */
  get mapOptions(): MapOptions {
    return this.options.mapOptions ?? {};
  }

  /** The mapping for a store: its own saved version, else its own file, else the "*" file; undefined when none serves it. */
  forShop(shopDomain: string): LoadedMapping | undefined {
    return this.storeMappings.get(shopDomain.trim().toLowerCase())?.mapping ?? selectMapping(this.mappings(), shopDomain);
  }

  /** Stores served by a version of their own, with the version. */
  storeVersions(): Map<string, number> {
    return new Map([...this.storeMappings].map(([shop, s]) => [shop, s.version]));
  }

  /** The version of the store's own mapping in use, if it has one. */
  storeVersion(shop: string): number | undefined {
    return this.storeMappings.get(shop)?.version;
  }

  /**
   * Serves a store with its own saved version (already checked when it was saved), or with the files again
   * (`undefined`). Emits `change` for the store, which looks again at its waiting and held orders.
   */
  setStoreMapping(shop: string, current: { version: number; mapping: LoadedMapping } | undefined): void {
    const before = this.storeMappings.get(shop);
    if (before?.version === current?.version) return;
    if (current) this.storeMappings.set(shop, current);
    else this.storeMappings.delete(shop);
    this.logger.info({ shop, version: current?.version }, current ? "store's own mapping version in use" : 'store served by the mapping files again');
    this.emit('change', { files: [current?.mapping.file ?? before?.mapping.file ?? shop], problems: this.problems(), shops: [shop] });
  }

  /** Maps an order with the store's mapping; no mapping for the store is a `no-mapping` problem. */
  mapOrder(body: unknown, shopDomain: string): MapResult {
    const mapping = this.forShop(shopDomain);
    if (!mapping) {
      return {
        ok: false,
        problems: [
          mappingProblem({
            kind: 'no-mapping',
            field: '',
            message: `no mapping file serves ${shopDomain} and there is no usable "*" file in ${this.options.dir}`,
          }),
        ],
      };
    }
    return mapOrder(body, mapping, shopDomain, this.options.mapOptions);
  }

  /** The versions in use. */
  mappings(): LoadedMapping[] {
    return [...this.states.values()].flatMap((s) => (s.good ? [s.good] : []));
  }

  /** Every problem in force: files that do not load, and conflicts between files. */
  problems(): FileProblem[] {
    return [...this.states.values()].flatMap((s) => s.problems);
  }

  /** Warnings of the versions in use (rules that can never match, ...). */
  warnings(): FileProblem[] {
    return this.mappings().flatMap((m) => [...m.warnings]);
  }

  /** True once at least one file (or a store's own version) serves some store (readiness). */
  ready(): boolean {
    return this.mappings().length > 0 || this.storeMappings.size > 0;
  }

  private schedule(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => this.rescan(), this.options.debounceMs ?? 100);
    this.debounce.unref();
  }

  /** Rereads the directory; reloads changed files. Public for tests and for an admin "reload now" button. */
  rescan(): RegistryChange | undefined {
    let files: string[];
    try {
      files = existsSync(this.options.dir) ? listMappingFiles(this.options.dir) : [];
    } catch (error) {
      this.logger.error({ err: error, dir: this.options.dir }, 'cannot list the mapping directory; keeping the mappings in use');
      return undefined;
    }
    const initial = this.states.size === 0;
    const changed: string[] = [];
    const shops = new Set<string>();
    const noteShops = (state: FileState | undefined) => state?.good?.shops.forEach((shop) => shops.add(shop));
    for (const file of [...this.states.keys()]) {
      if (!files.includes(file)) {
        noteShops(this.states.get(file));
        this.states.delete(file);
        changed.push(file);
        this.logger.info({ file }, 'mapping file removed');
      }
    }
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        continue; // Gone between listing and reading: the next rescan sees it.
      }
      const before = this.states.get(file);
      if (before && before.text === text) continue;
      changed.push(file);
      noteShops(before);
      this.reloadFile(file, text, before, initial);
      noteShops(this.states.get(file));
    }
    if (initial) this.rejectConflicts();
    if (changed.length === 0) return undefined;
    // A change elsewhere (a deleted or edited file) can end the conflict that keeps an unchanged file out of use:
    // every file still refused is judged again against the files in use now.
    if (!initial) {
      for (const [file, state] of this.states) {
        if (changed.includes(file) || state.problems.length === 0) continue;
        this.reloadFile(file, state.text, state, false);
        if (this.states.get(file)?.problems.length === 0) {
          changed.push(file);
          noteShops(this.states.get(file));
        }
      }
    }
    const change = { files: changed, problems: this.problems(), shops: [...shops].sort() };
    this.emit('change', change);
    return change;
  }

  /** At start no version is known good: files that claim the same store serve none of their stores. */
  private rejectConflicts(): void {
    const conflicts = findConflicts(this.mappings());
    for (const [file, state] of this.states) {
      if (!conflicts.files.has(file)) continue;
      const problems = conflicts.problems.filter((p) => p.file === file);
      this.states.set(file, { text: state.text, problems });
      this.logger.error({ file, problems: problems.map(formatFileProblem) }, `mapping file ${basename(file)} claims a store another file claims`);
    }
  }

  private reloadFile(file: string, text: string, before: FileState | undefined, initial: boolean): void {
    const result = loadMappingText(text, file);
    if (!result.ok) {
      this.states.set(file, { text, ...(before?.good ? { good: before.good } : {}), problems: result.problems });
      this.logger.error(
        { file, problems: result.problems.map(formatFileProblem) },
        before?.good
          ? `mapping file ${basename(file)} has problems; the last good version stays in use`
          : `mapping file ${basename(file)} has problems and serves no store`,
      );
      return;
    }
    // A new version must not take a store that another file serves.
    const others = initial ? [] : [...this.states.entries()].filter(([f]) => f !== file).flatMap(([, s]) => (s.good ? [s.good] : []));
    const conflicts = findConflicts([...others, result.mapping]).problems.filter((p) => p.file === file);
    if (conflicts.length > 0) {
      this.states.set(file, { text, ...(before?.good ? { good: before.good } : {}), problems: conflicts });
      this.logger.error({ file, problems: conflicts.map(formatFileProblem) }, `mapping file ${basename(file)} claims a store another file serves`);
      return;
    }
    this.states.set(file, { text, good: result.mapping, problems: [] });
    if (result.mapping.warnings.length > 0) {
      this.logger.warn({ file, warnings: result.mapping.warnings.map(formatFileProblem) }, `mapping file ${basename(file)} has warnings`);
    }
    this.logger.info({ file, shops: result.mapping.shops }, before ? 'mapping file reloaded' : 'mapping file loaded');
  }
}
