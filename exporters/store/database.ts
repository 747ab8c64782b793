// Opening the store's SQLite file (read-api.md §9.1, §9.3 "Start"): WAL journal so a committed batch
// survives kill -9, incremental auto-vacuum so pruned pages can be given back, and a check of an
// existing file before anything is written to it.
import { mkdirSync, existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { StartupError } from '../../pipeline/errors.ts';
import { HEAD_FIRST } from './read-span.ts';

/** `PRAGMA user_version` of the schema below; a file with another (non-zero) version is refused. */
export const SCHEMA_VERSION = 1;

const SCHEMA = `
CREATE TABLE spans (
  project     TEXT    NOT NULL,
  trace_id    TEXT    NOT NULL,
  span_id     TEXT    NOT NULL,
  parent_id   TEXT,
  span_name   TEXT    NOT NULL,
  span_type   TEXT,
  trace_type  TEXT,
  span_kind   INTEGER NOT NULL,
  status_code INTEGER NOT NULL,
  session_id  TEXT,
  user_id     TEXT,
  start_ns    INTEGER NOT NULL,
  end_ns      INTEGER NOT NULL,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER,
  record      TEXT    NOT NULL,
  PRIMARY KEY (project, trace_id, span_id)
);
CREATE INDEX spans_start ON spans (project, start_ns);
CREATE INDEX spans_name ON spans (project, span_name);
CREATE INDEX spans_span_type ON spans (project, span_type);
CREATE INDEX spans_trace_type ON spans (project, trace_type);
CREATE INDEX spans_parent ON spans (project, parent_id);
CREATE TABLE traces (
  project    TEXT    NOT NULL,
  trace_id   TEXT    NOT NULL,
  span_count INTEGER NOT NULL,
  bytes      INTEGER NOT NULL,
  last_write INTEGER NOT NULL,
  PRIMARY KEY (project, trace_id)
);
CREATE INDEX traces_last_write ON traces (last_write, trace_id);
`;
// The primary key's own index serves (project, trace_id): a separate index would duplicate it.

/**
 * A trace's spans in head order (read-api.md §8.1): its first entry for (project, trace_id) is the head, so
 * picking a head is one seek (the simple query checks every span it walks this way; a head read uses it
 * too). The columns are HEAD_FIRST itself: SQLite uses an expression index only for the same expression.
 * Added after schema version 1 shipped, and harmless to a tracehop that does not know it, so it is created
 * at every open when missing rather than by a new schema version (an older tracehop would refuse that file).
 */
const HEAD_INDEX = `CREATE INDEX IF NOT EXISTS spans_head ON spans (project, trace_id, ${HEAD_FIRST})`;

function fail(path: string, reason: string, cause?: unknown): never {
  throw new StartupError(`store exporter: cannot use ${path}: ${reason}`, { cause });
}

/** Opens (creating when missing) and checks the store file; throws StartupError naming the path. */
export function openStoreDatabase(path: string): DatabaseSync {
  const existed = existsSync(path);
  let db: DatabaseSync;
  try {
    if (!existed) mkdirSync(dirname(path), { recursive: true });
    db = new DatabaseSync(path, { timeout: 5000 });
  } catch (error) {
    fail(path, (error as Error).message, error);
  }
  try {
    if (existed) {
      const check = db.prepare('PRAGMA quick_check').all().map((row) => String(row.quick_check));
      if (check.length !== 1 || check[0] !== 'ok') fail(path, `the file is damaged (quick_check: ${check.slice(0, 3).join('; ')})`);
    }
    const version = Number(db.prepare('PRAGMA user_version').get()!.user_version);
    const tables = Number(db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table'").get()!.n);
    if (version === 0 && tables > 0) fail(path, 'it is not a tracehop store (tables without a schema version)');
    if (version !== 0 && version !== SCHEMA_VERSION) fail(path, `unknown schema version ${version} (this tracehop knows ${SCHEMA_VERSION})`);
    // auto_vacuum must be chosen before the first table exists.
    if (version === 0) db.exec('PRAGMA auto_vacuum = INCREMENTAL');
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    if (version === 0) {
      db.exec('BEGIN');
      db.exec(SCHEMA);
      db.exec(`PRAGMA user_version = ${SCHEMA_VERSION}`);
      db.exec('COMMIT');
    }
    db.exec(HEAD_INDEX);
    return db;
  } catch (error) {
    db.close();
    if (error instanceof StartupError) throw error;
    fail(path, (error as Error).message, error);
  }
}
