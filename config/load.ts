// Loads the Collector-shaped YAML config: env expansion, every component's schema (defaults filled in,
// unknown keys are errors), pipeline wiring rules. Every problem is reported with file:line:col.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, Scalar, visit, type Document } from 'yaml';
import { isJsonObject } from '../model/json-object.ts';
import { SYNC_PROCESSORS, type ComponentKind } from '../pipeline/component.ts';
import type { ComponentEntry, GraphSpec, PipelineEntry } from '../pipeline/graph.ts';
import type { Registry } from '../pipeline/registry.ts';
import { defaultSpikeLimitMib } from '../pipeline/memory-limit.ts';
import { describeError, SchemaValidators } from './ajv.ts';
import { expandEnv } from './expand.ts';
import { OVERRIDE_SOURCE, overridePosition, parseOverride, type Override } from './overrides.ts';
import { ConfigError, type Problem } from './problem.ts';
import {
  DEFAULT_MAX_BYTES, RECEIVER_STEPS, serviceSchema, storageSchema, TOP_LEVEL_KEYS,
  type ServiceConfig, type StorageConfig,
} from './schema.ts';

export interface LoadedConfig extends GraphSpec {
  source: string;
  service: Omit<ServiceConfig, 'pipelines' | 'extensions' | 'workers'> & { memory_spike_limit_mib: number; workers: number };
  storage: StorageConfig & { max_bytes: number };
  /** Things worth a log line that do not stop the daemon (unset environment variables). */
  warnings: string[];
}

const SECTION_KIND: Record<string, ComponentKind> = {
  extensions: 'extension',
  receivers: 'receiver',
  processors: 'processor',
  exporters: 'exporter',
};

/** A loaded config and the text it was loaded from (what the primary hands its workers). */
export interface ConfigRead {
  config: LoadedConfig;
  text: string;
}

/** `sets`: `--set path=value` arguments, applied in order before anything is checked (config/overrides.ts). */
export function loadConfigFile(file: string, registry: Registry, env = process.env, sets: readonly string[] = []): LoadedConfig {
  return loadConfigText(readConfigText(file), file, registry, env, sets);
}

/** The text of a config file; throws ConfigError when it cannot be read. */
export function readConfigText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (err as Error).message;
    throw new ConfigError([{ file, line: 1, col: 1, path: '', message: `cannot read config: ${reason}` }]);
  }
}

export function loadConfigText(text: string, file: string, registry: Registry, env = process.env, sets: readonly string[] = []): LoadedConfig {
  const loader = new Loader(text, file, env, sets);
  const config = loader.load(registry);
  if (loader.problems.length > 0) throw new ConfigError(loader.problems);
  return config!;
}

class Loader {
  readonly problems: Problem[] = [];
  readonly warnings: string[] = [];
  private readonly lines = new LineCounter();
  private readonly doc: Document.Parsed;
  private readonly file: string;
  private readonly env: NodeJS.ProcessEnv;
  private readonly sets: readonly string[];
  /** The --set overrides applied to the document. */
  private readonly overrides: Override[] = [];
  /** Dropped with the loader once the config is loaded (ajv.ts). */
  private readonly validators = new SchemaValidators();

  constructor(text: string, file: string, env: NodeJS.ProcessEnv, sets: readonly string[]) {
    this.file = file;
    this.env = env;
    this.sets = sets;
    this.doc = parseDocument(text, { lineCounter: this.lines, uniqueKeys: true, prettyErrors: false });
  }

  /** Applies each `--set` to the document, in order; a malformed one is a problem. */
  private applyOverrides(): void {
    this.sets.forEach((text, i) => {
      const parsed = parseOverride(text, i + 1);
      if (!('index' in parsed)) {
        this.problems.push(parsed);
        return;
      }
      try {
        this.doc.setIn(parsed.path, this.doc.createNode(parsed.value));
        this.overrides.push(parsed);
      } catch {
        // The YAML library refuses a path through a scalar, or a list entry that is not an index.
        this.problems.push({ file: OVERRIDE_SOURCE, line: parsed.index, col: 1, path: parsed.path.join('.'), message: 'cannot set: a value on this path is not a mapping (or a list index is not a number)' });
      }
    });
  }

  load(registry: Registry): LoadedConfig | undefined {
    for (const err of this.doc.errors) {
      const pos = this.lines.linePos(err.pos[0]);
      this.problems.push({ file: this.file, line: pos.line, col: pos.col, path: '', message: err.message.split('\n')[0] });
    }
    if (this.problems.length > 0) return undefined;
    this.applyOverrides();
    if (this.problems.length > 0) return undefined;
    this.expand();
    let root: unknown;
    try {
      root = this.doc.toJS({ maxAliasCount: 100 });
    } catch (err) {
      // The YAML library refuses a document whose aliases expand without bound (an alias bomb).
      this.problems.push({ file: this.file, line: 1, col: 1, path: '', message: `cannot read the YAML: ${(err as Error).message}` });
      return undefined;
    }
    if (root === null || typeof root !== 'object' || Array.isArray(root)) {
      this.problem([], 'the config must be a mapping with receivers, exporters and service');
      return undefined;
    }
    const top = root as Record<string, unknown>;
    for (const key of Object.keys(top)) {
      if (!(TOP_LEVEL_KEYS as readonly string[]).includes(key)) this.problem([key], 'unknown key', true);
    }
    const extensions = this.components(top, 'extensions', registry);
    const sections = {
      receivers: this.components(top, 'receivers', registry),
      processors: this.components(top, 'processors', registry),
      exporters: this.components(top, 'exporters', registry),
    };
    const service = this.validate(['service'], top.service ?? {}, serviceSchema) as ServiceConfig | undefined;
    const storage = this.storage(top.storage);
    if (!service || !storage) return undefined;
    const pipelines = this.pipelines(service, sections, registry);
    const enabled = this.enabledExtensions(service.extensions, extensions);
    this.checkAuthenticators(sections.receivers, enabled);
    this.resolveReadStores(sections.receivers, sections.exporters, pipelines);
    const { pipelines: _, extensions: __, ...serviceRest } = service;
    const memory_spike_limit_mib = this.spikeLimit(service);
    const workers = this.workers(service.workers, sections.exporters, pipelines);
    return {
      source: this.file, extensions: enabled, ...sections, pipelines,
      service: { ...serviceRest, memory_spike_limit_mib, workers }, storage, warnings: this.warnings,
    };
  }

  /** `service.memory_spike_limit_mib`, or its default; it must leave a soft limit above zero. */
  private spikeLimit(service: ServiceConfig): number {
    const spike = service.memory_spike_limit_mib;
    if (spike === undefined) return defaultSpikeLimitMib(service.memory_limit_mib);
    if (spike >= service.memory_limit_mib) {
      this.problem(['service', 'memory_spike_limit_mib'],
        `must be less than service.memory_limit_mib (${service.memory_limit_mib}): the soft limit is memory_limit_mib - memory_spike_limit_mib`);
    }
    return spike;
  }

  /**
   * `service.workers`: a number of processes, or `auto` for the CPUs this process may use. A store exporter
   * is one SQLite database with one writer, and it serves the tracing API's reads: it runs in a single
   * process, so `auto` is 1 when a pipeline has one and a number above 1 is refused.
   */
  private workers(value: number | string, exporters: Map<string, ComponentEntry>, pipelines: PipelineEntry[]): number {
    const stores = [...exporters.values()]
      .filter((e) => e.type === 'store' && pipelines.some((p) => p.exporters.includes(e.id)))
      .map((e) => e.id);
    if (value === 'auto') return stores.length > 0 ? 1 : availableParallelism();
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
      this.problem(['service', 'workers'], `must be a number of worker processes (1 or more) or auto (got ${JSON.stringify(value)})`);
      return 1;
    }
    if (value > 1 && stores.length > 0) {
      this.problem(['service', 'workers'],
        `must be 1 with a store exporter (${stores.join(', ')}): its SQLite database has one writer and serves the reads; use a file, kafka or otlp exporter to run several workers`);
    }
    return value;
  }

  /** The extensions `service.extensions` lists, each defined under `extensions:`. */
  private enabledExtensions(ids: string[], defined: Map<string, ComponentEntry>): Map<string, ComponentEntry> {
    const enabled = new Map<string, ComponentEntry>();
    ids.forEach((id, i) => {
      const entry = defined.get(id);
      if (entry === undefined) this.problem(['service', 'extensions', String(i)], `"${id}" is not defined under extensions`);
      else enabled.set(id, entry);
    });
    return enabled;
  }

  /** Every `auth: {authenticator: <id>}` in a receiver's settings names an enabled extension. */
  private checkAuthenticators(receivers: Map<string, ComponentEntry>, enabled: Map<string, ComponentEntry>): void {
    const visit = (value: unknown, path: string[]): void => {
      if (!isJsonObject(value)) return;
      for (const [key, child] of Object.entries(value)) {
        const here = [...path, key];
        if (key === 'auth' && typeof child === 'object' && child !== null) {
          const id = (child as { authenticator?: unknown }).authenticator;
          if (typeof id === 'string' && !enabled.has(id)) {
            this.problem([...here, 'authenticator'], `"${id}" is not an enabled extension (define it under extensions and list it in service.extensions)`);
          }
        } else visit(child, here);
      }
    };
    for (const [id, entry] of receivers) visit(entry.config, ['receivers', id]);
  }

  /**
   * `receivers.http.read.store` (read-api.md §10) names a `store` exporter; unset, it is the config's only
   * store exporter (filled in here, so the receiver sees the id), none when there is none, and a problem
   * when there are several.
   */
  private resolveReadStores(receivers: Map<string, ComponentEntry>, exporters: Map<string, ComponentEntry>, pipelines: PipelineEntry[]): void {
    const stores = [...exporters.values()].filter((e) => e.type === 'store').map((e) => e.id);
    // Only exporters of a pipeline run: a store in none would have nothing to read from.
    const running = (store: string) => pipelines.some((p) => p.exporters.includes(store));
    for (const [id, entry] of receivers) {
      if (entry.type !== 'http') continue;
      const read = entry.config.read as { store?: string } | undefined;
      if (read === undefined) continue;
      if (read.store !== undefined) {
        if (exporters.get(read.store)?.type !== 'store') {
          this.problem(['receivers', id, 'read', 'store'], `"${read.store}" is not a store exporter (define it under exporters with type store)`);
        } else if (!running(read.store)) {
          this.problem(['receivers', id, 'read', 'store'], `store exporter "${read.store}" is in no pipeline (list it in a pipeline's exporters)`);
        }
      } else if (stores.length > 1) {
        this.problem(['receivers', id], `several store exporters (${stores.join(', ')}): name the one serving reads in read.store`);
      } else if (stores.length === 1) {
        if (running(stores[0])) read.store = stores[0];
        else this.problem(['receivers', id], `store exporter "${stores[0]}" is in no pipeline: list it in a pipeline's exporters to serve reads`);
      }
    }
  }

  /** Replaces env references in every string scalar, keeping node positions for error messages. */
  private expand(): void {
    visit(this.doc, {
      Scalar: (_key, node) => {
        if (typeof node.value !== 'string') return;
        const result = expandEnv(node.value, this.env);
        if (result.error) {
          this.problemAt(node, this.pathOf(node), result.error);
          return;
        }
        for (const name of result.unset) this.warnings.push(`environment variable ${name} is not set; using ""`);
        if (result.value === node.value) return;
        // A plain `port: ${env:PORT}` reads as the number it expands to, as in the Collector.
        node.value = result.whole && node.type === Scalar.PLAIN ? readScalar(result.value) : result.value;
      },
    });
  }

  private components(top: Record<string, unknown>, section: string, registry: Registry): Map<string, ComponentEntry> {
    const out = new Map<string, ComponentEntry>();
    const raw = top[section];
    if (raw === undefined || raw === null) return out;
    if (typeof raw !== 'object' || Array.isArray(raw)) {
      this.problem([section], 'must be a mapping of component ids to their settings');
      return out;
    }
    const kind = SECTION_KIND[section];
    for (const [id, value] of Object.entries(raw as Record<string, unknown>)) {
      const type = parseId(id);
      if (!type) {
        this.problem([section, id], 'an id is `type` or `type/name`', true);
        out.set(id, { id, type: id, config: {} });
        continue;
      }
      if (kind === 'processor' && RECEIVER_STEPS.includes(type)) {
        const empty = value === null || value === undefined || (typeof value === 'object' && Object.keys(value).length === 0);
        if (!empty) this.problem([section, id], `${type} has no settings: it is part of every receiver`);
        continue;
      }
      const factory = registry.get(kind, type);
      if (!factory) {
        this.problem([section, id], `unknown ${kind} type "${type}" (known: ${registry.types(kind).join(', ')})`, true);
        out.set(id, { id, type, config: {} });
        continue;
      }
      const config = this.validate([section, id], value ?? {}, factory.schema) as Record<string, unknown> | undefined;
      // An invalid component stays known by its id, so pipelines that list it are not reported again.
      out.set(id, { id, type, config: config ?? {} });
      if (!config) continue;
      for (const p of factory.check?.(config) ?? []) this.problem([section, id, ...p.key.split('.')], p.message);
    }
    return out;
  }

  private storage(raw: unknown): LoadedConfig['storage'] | undefined {
    const value = typeof raw === 'string' ? { type: raw } : (raw ?? {});
    if (typeof raw === 'string' && raw !== 'memory' && raw !== 'disk') {
      this.problem(['storage'], 'must be memory, disk, or a mapping with type');
      return undefined;
    }
    const storage = this.validate(['storage'], value, storageSchema) as StorageConfig | undefined;
    if (!storage) return undefined;
    return { ...storage, max_bytes: storage.max_bytes ?? DEFAULT_MAX_BYTES[storage.type] };
  }

  private pipelines(
    service: ServiceConfig,
    sections: Record<'receivers' | 'processors' | 'exporters', Map<string, ComponentEntry>>,
    registry: Registry,
  ): PipelineEntry[] {
    const out: PipelineEntry[] = [];
    for (const [id, p] of Object.entries(service.pipelines)) {
      const path = ['service', 'pipelines', id];
      const signal = parseId(id);
      if (signal !== 'traces') {
        this.problem(path, 'only traces pipelines exist (`traces` or `traces/<name>`)', true);
        continue;
      }
      if (p.receivers.length === 0) this.problem([...path, 'receivers'], 'a pipeline needs at least one receiver');
      if (p.exporters.length === 0) this.problem([...path, 'exporters'], 'a pipeline needs at least one exporter');
      for (const section of ['receivers', 'processors', 'exporters'] as const) {
        const seen = new Set<string>();
        p[section].forEach((ref, i) => {
          if (seen.has(ref)) this.problem([...path, section, String(i)], `"${ref}" is listed twice`);
          seen.add(ref);
          if (section === 'processors' && RECEIVER_STEPS.includes(parseId(ref) ?? ref)) return;
          if (sections[section].has(ref)) return;
          // namespace needs no settings: listing it is enough.
          const type = parseId(ref);
          const implicit = section === 'processors' && ref === type && registry.get('processor', ref) &&
            (SYNC_PROCESSORS as readonly string[]).includes(ref);
          if (implicit) {
            const config = this.validate([...path, section, String(i)], {}, registry.get('processor', ref)!.schema);
            if (config) sections.processors.set(ref, { id: ref, type: ref, config: config as Record<string, unknown> });
            return;
          }
          this.problem([...path, section, String(i)], `"${ref}" is not defined under ${section}`);
        });
      }
      this.checkProcessorOrder(path, p.processors, sections.processors);
      out.push({ id, ...p, processors: p.processors.filter((ref) => !RECEIVER_STEPS.includes(parseId(ref) ?? ref)) });
    }
    if (out.length === 0 && this.problems.length === 0) this.problem(['service', 'pipelines'], 'define at least one pipeline');
    this.checkSharedReceivers(out, sections.processors);
    return out;
  }

  /** Synchronous processors (namespace) first, asynchronous ones after; the former receiver steps anywhere. */
  private checkProcessorOrder(path: string[], refs: string[], processors: Map<string, ComponentEntry>): void {
    let lastSync = -1;
    let seenAsync = false;
    refs.forEach((ref, i) => {
      const type = processors.get(ref)?.type ?? parseId(ref) ?? ref;
      const rank = (SYNC_PROCESSORS as readonly string[]).indexOf(type);
      const here = [...path, 'processors', String(i)];
      if (RECEIVER_STEPS.includes(type)) return;
      if (rank < 0) {
        seenAsync = true;
        return;
      }
      if (seenAsync) this.problem(here, `"${ref}" runs before the acknowledgement and must come before every asynchronous processor`);
      if (rank < lastSync) this.problem(here, `"${ref}" must come before ${SYNC_PROCESSORS[lastSync]}`);
      lastSync = Math.max(lastSync, rank);
    });
  }

  /** Pipelines sharing a receiver must run the same synchronous processors with the same settings. */
  private checkSharedReceivers(pipelines: PipelineEntry[], processors: Map<string, ComponentEntry>): void {
    const signature = (p: PipelineEntry) => {
      const listed = new Map(p.processors.map((ref) => processors.get(ref)).filter((e) => e).map((e) => [e!.type, e!.config]));
      return JSON.stringify(SYNC_PROCESSORS.map((type) => listed.get(type) ?? null));
    };
    const byReceiver = new Map<string, PipelineEntry>();
    for (const p of pipelines) {
      for (const r of p.receivers) {
        const first = byReceiver.get(r);
        if (!first) byReceiver.set(r, p);
        else if (signature(first) !== signature(p)) {
          this.problem(['service', 'pipelines', p.id, 'processors'],
            `pipelines ${first.id} and ${p.id} share receiver "${r}" and must list the same synchronous processors with the same settings`);
        }
      }
    }
  }

  private validate(path: string[], value: unknown, schema: Record<string, unknown>): unknown {
    const copy = structuredClone(value);
    const fn = this.validators.validator(schema);
    if (fn(copy)) return copy;
    for (const error of fn.errors ?? []) {
      const { segments, message } = describeError(error);
      this.problem([...path, ...segments], message, error.keyword === 'additionalProperties');
    }
    return undefined;
  }

  private problem(path: string[], message: string, atKey = false): void {
    const node = this.nodeAt(path, atKey);
    const set = overridePosition(this.overrides, path, atKey, !node?.range);
    if (set !== undefined) {
      this.problems.push({ ...set, path: path.join('.'), message });
      return;
    }
    const offset = node?.range?.[0] ?? 0;
    const pos = this.lines.linePos(offset);
    this.problems.push({ file: this.file, line: pos.line, col: pos.col, path: path.join('.'), message });
  }

  private problemAt(node: { range?: [number, number, number] | null }, path: string[], message: string): void {
    const set = overridePosition(this.overrides, path, false, !node.range);
    if (set !== undefined) {
      this.problems.push({ ...set, path: path.join('.'), message });
      return;
    }
    const pos = this.lines.linePos(node.range?.[0] ?? 0);
    this.problems.push({ file: this.file, line: pos.line, col: pos.col, path: path.join('.'), message });
  }

  /**
   * The YAML node a problem at `path` points to: the value there (its key when `atKey`), or, when the
   * path goes past what the file has (a missing key), the key of the deepest entry that exists.
   */
  private nodeAt(path: string[], atKey: boolean): { range?: [number, number, number] | null } | undefined {
    type Positioned = { range?: [number, number, number] | null };
    let node: unknown = this.doc.contents;
    let lastKey: Positioned | undefined;
    for (let i = 0; i < path.length; i++) {
      const segment = path[i];
      if (isMap(node)) {
        // A key an override created is a plain value, not a Scalar node.
        const pair = node.items.find((p) => String(isScalar(p.key) ? p.key.value : p.key) === segment);
        if (!pair) return lastKey ?? (node as Positioned);
        if (i === path.length - 1 && atKey) return pair.key as Positioned;
        lastKey = pair.key as Positioned;
        node = pair.value ?? pair.key;
      } else if (isSeq(node)) {
        const item = node.items[Number(segment)];
        if (item === undefined) return lastKey ?? (node as Positioned);
        node = item;
      } else return lastKey ?? (node as Positioned);
    }
    return node as Positioned;
  }

  private pathOf(target: unknown): string[] {
    const found: string[] = [];
    const walk = (node: unknown, path: string[]): boolean => {
      if (node === target) {
        found.push(...path);
        return true;
      }
      if (isMap(node)) {
        return node.items.some((p) => isPair(p) && walk(p.value, [...path, String(isScalar(p.key) ? p.key.value : p.key)]));
      }
      if (isSeq(node)) return node.items.some((item, i) => walk(item, [...path, String(i)]));
      return false;
    };
    walk(this.doc.contents, []);
    return found;
  }
}

/** `type` of a `type` or `type/name` id, or undefined when malformed. */
export function parseId(id: string): string | undefined {
  const m = /^([a-z][a-z0-9_]*)(?:\/[^/\s]+)?$/.exec(id);
  return m?.[1];
}

function readScalar(text: string): unknown {
  const doc = parseDocument(text);
  const value = doc.errors.length === 0 ? doc.toJS() : text;
  return value === null || typeof value === 'object' ? text : value;
}
