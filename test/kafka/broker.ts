// A real single-node Apache Kafka broker (KRaft, combined broker + controller) for tests and for trying
// the kafka exporter locally. The jars come from Maven Central through Maven and are cached outside the
// repository; each broker lives in its own work directory (properties, log dirs, server.log, state.json),
// so any process can stop or restart it: the vitest global setup starts it, the outage test stops and
// restarts the same broker (same ports, same data), and the global teardown stops whatever runs then.
//
// CLI: `test/kafka/broker.sh start|stop|status` (or `node test/kafka/broker.ts ...` on Node 24).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../interop/ports.ts';

export const KAFKA_VERSION = '3.9.1';
const SLF4J_BINDING_VERSION = '1.7.36';
const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.8.1';
const READY_LINE = 'Kafka Server started';
const STATE_FILE = 'state.json';

/** The one user of the SASL listener, for every mechanism (test credentials, not a secret). */
export const SASL_USER = 'tracehop';
export const SASL_PASSWORD = 'tracehop-test-password';

export interface BrokerState {
  /** The broker's own directory: server.properties, log4j.properties, server.log, data/. */
  workDir: string;
  /** PLAINTEXT listener, `127.0.0.1:<port>`. */
  bootstrap: string;
  port: number;
  /** SASL_PLAINTEXT listener (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 for SASL_USER), `127.0.0.1:<port>`. */
  saslBootstrap: string;
  saslPort: number;
  /** SSL listener (server certificate only), `127.0.0.1:<port>`; trust `tls.ca` to connect. */
  tlsBootstrap: string;
  tlsPort: number;
  /** SSL listener that also requires a client certificate signed by `tls.ca`. */
  mtlsBootstrap: string;
  mtlsPort: number;
  /** PEM files made for this broker (see brokerCertificates). */
  tls: BrokerCertificates;
  controllerPort: number;
  clusterId: string;
  /** The java process while it runs. */
  pid?: number;
}

export interface StartOptions {
  /** Where the broker lives; a new temp folder when absent. */
  workDir?: string;
  /** How long to wait for `Kafka Server started` (ms). */
  readyTimeoutMs?: number;
  /** Progress lines (jar fetch, start); silent when absent. */
  log?: (line: string) => void;
}

// ---- jars ------------------------------------------------------------------------------------------

export function cacheDir(): string {
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'tracehop', `kafka-${KAFKA_VERSION}`);
}

/** What to install, said once, when a tool is missing. */
function requireTool(command: string, args: string[], hint: string): void {
  const result = spawnSync(command, args, { stdio: 'ignore' });
  if (result.error) throw new Error(`${command} not found on PATH: ${hint}`);
}

const JAVA_HINT = 'the Kafka broker for tests needs Java 17 or newer (Debian/Ubuntu: apt-get install openjdk-17-jre-headless)';
const OPENSSL_HINT = 'the Kafka broker\'s TLS listeners need certificates made with openssl (Debian/Ubuntu: apt-get install openssl)';
const MAVEN_HINT = 'the Kafka broker jars are fetched from Maven Central with Maven (Debian/Ubuntu: apt-get install maven)';

function minimalPom(): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.tracehop.test</groupId>
  <artifactId>kafka-broker-jars</artifactId>
  <version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>${KAFKA_VERSION}</version></dependency>
    <!-- the broker's POM names no logging backend: without one it logs nothing, not even readiness -->
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-reload4j</artifactId><version>${SLF4J_BINDING_VERSION}</version></dependency>
  </dependencies>
</project>
`;
}

/** The directory holding the broker's jars, fetched with Maven on first use. */
export function ensureJars(log: (line: string) => void = () => {}): string {
  const libs = join(cacheDir(), 'libs');
  if (existsSync(join(libs, '.complete'))) return libs;
  requireTool('mvn', ['-v'], MAVEN_HINT);
  mkdirSync(cacheDir(), { recursive: true });
  // Fetched into a private folder and renamed into place, so a half-done fetch is never used and two
  // processes fetching at once do not mix their files.
  const scratch = mkdtempSync(join(cacheDir(), 'fetch-'));
  try {
    writeFileSync(join(scratch, 'pom.xml'), minimalPom());
    log(`fetching Apache Kafka ${KAFKA_VERSION} jars from Maven Central into ${libs}`);
    const result = spawnSync(
      'mvn',
      ['-q', '-B', `${DEPENDENCY_PLUGIN}:copy-dependencies`, '-DoutputDirectory=libs', '-DincludeScope=runtime'],
      { cwd: scratch, encoding: 'utf8' },
    );
    if (result.status !== 0) {
      throw new Error(`mvn could not fetch the Kafka jars (exit ${result.status}):\n${result.stdout}${result.stderr}`);
    }
    writeFileSync(join(scratch, 'libs', '.complete'), `${KAFKA_VERSION}\n`);
    try {
      renameSync(join(scratch, 'libs'), libs);
    } catch (error) {
      if (!existsSync(join(libs, '.complete'))) throw error;
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return libs;
}

// ---- certificates ----------------------------------------------------------------------------------

/** PEM files of a broker's own test certificate authority (throwaway keys, made per broker). */
export interface BrokerCertificates {
  /** The authority's certificate: what a client trusts (`tls.ca_file`). */
  ca: string;
  /** The broker's private key followed by its certificate (127.0.0.1 and localhost), for ssl.keystore. */
  serverKeystore: string;
  /** A client certificate and key the authority signed, for the listener that requires one. */
  clientCert: string;
  clientKey: string;
}

function openssl(dir: string, args: string[]): void {
  const result = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
  if (result.error) throw new Error(`openssl not found on PATH: ${OPENSSL_HINT}`);
  if (result.status !== 0) throw new Error(`openssl ${args[0]} failed (exit ${result.status}):\n${result.stderr}`);
}

/** A key pair and a certificate signed by the authority in `dir` (ca.pem, ca.key). */
function signedCertificate(dir: string, name: string, subject: string, extensions: string): void {
  openssl(dir, ['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', subject]);
  writeFileSync(join(dir, `${name}.ext`), extensions);
  openssl(dir, ['x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', '3650', '-out', `${name}.pem`, '-extfile', `${name}.ext`]);
}

/** Makes a certificate authority, the broker's certificate and a client's, in `dir`. */
function brokerCertificates(dir: string): BrokerCertificates {
  mkdirSync(dir, { recursive: true });
  openssl(dir, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '3650', '-subj', '/CN=tracehop test CA']);
  signedCertificate(dir, 'server', '/CN=127.0.0.1', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  signedCertificate(dir, 'client', '/CN=tracehop-client', 'extendedKeyUsage=clientAuth\n');
  // Kafka's PEM keystore is one file: the (unencrypted PKCS#8) key, then the certificate chain.
  const serverKeystore = join(dir, 'server-keystore.pem');
  writeFileSync(serverKeystore, readFileSync(join(dir, 'server.key'), 'utf8') + readFileSync(join(dir, 'server.pem'), 'utf8'));
  return { ca: join(dir, 'ca.pem'), serverKeystore, clientCert: join(dir, 'client.pem'), clientKey: join(dir, 'client.key') };
}

// ---- work directory --------------------------------------------------------------------------------

function serverProperties(state: BrokerState): string {
  const lines = [
    'process.roles=broker,controller',
    'node.id=1',
    `controller.quorum.voters=1@127.0.0.1:${state.controllerPort}`,
    `listeners=PLAINTEXT://127.0.0.1:${state.port},SASL_PLAINTEXT://127.0.0.1:${state.saslPort},TLS://127.0.0.1:${state.tlsPort},MTLS://127.0.0.1:${state.mtlsPort},CONTROLLER://127.0.0.1:${state.controllerPort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${state.port},SASL_PLAINTEXT://127.0.0.1:${state.saslPort},TLS://127.0.0.1:${state.tlsPort},MTLS://127.0.0.1:${state.mtlsPort}`,
    'controller.listener.names=CONTROLLER',
    'inter.broker.listener.name=PLAINTEXT',
    'listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,TLS:SSL,MTLS:SSL',
    // Two SSL listeners with the broker's own test CA, so the exporter's tls options meet a real TLS
    // handshake: TLS asks for no client certificate, MTLS requires one signed by the same CA.
    'ssl.keystore.type=PEM',
    `ssl.keystore.location=${state.tls.serverKeystore}`,
    'ssl.truststore.type=PEM',
    `ssl.truststore.location=${state.tls.ca}`,
    'listener.name.mtls.ssl.client.auth=required',
    // A second listener that asks for SASL, so the exporter's PLAIN and SCRAM options meet a real broker.
    // SCRAM credentials are written into the metadata log at format time (--add-scram).
    'sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512',
    `listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_${SASL_USER}="${SASL_PASSWORD}";`,
    'listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
    'listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;',
    `log.dirs=${join(state.workDir, 'data')}`,
    // A missing topic must stay missing: the exporter's start-up check is tested against it.
    'auto.create.topics.enable=false',
    'num.partitions=1',
    'offsets.topic.replication.factor=1',
    'offsets.topic.num.partitions=1',
    'transaction.state.log.replication.factor=1',
    'transaction.state.log.min.isr=1',
    'group.initial.rebalance.delay.ms=0',
  ];
  return lines.join('\n') + '\n';
}

const LOG4J_PROPERTIES = `log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.kafka.controller=WARN
`;

function readState(workDir: string): BrokerState | undefined {
  try {
    return JSON.parse(readFileSync(join(workDir, STATE_FILE), 'utf8')) as BrokerState;
  } catch {
    return undefined;
  }
}

function writeState(state: BrokerState): void {
  writeFileSync(join(state.workDir, STATE_FILE), JSON.stringify(state, null, 2) + '\n');
}

function javaArgs(libs: string, workDir: string, mainClass: string, args: string[]): string[] {
  return [
    '-Xms512m', '-Xmx1g', '-XX:+UseG1GC', '-Djava.awt.headless=true',
    `-Dlog4j.configuration=file:${join(workDir, 'log4j.properties')}`,
    // `dir/*` is the JVM's own wildcard for every jar in a folder.
    '-cp', join(libs, '*'), mainClass, ...args,
  ];
}

/** Writes the properties and formats the KRaft log dir of a new broker (ports chosen now, kept for restarts). */
async function prepare(workDir: string, libs: string): Promise<BrokerState> {
  mkdirSync(workDir, { recursive: true });
  const ports = new Set<number>();
  while (ports.size < 5) ports.add(await freePort());
  const [port, saslPort, tlsPort, mtlsPort, controllerPort] = [...ports];
  // A Kafka Uuid is 16 random bytes in url-safe base64 without padding, what `StorageTool random-uuid`
  // prints; making it here saves one JVM start. Like Kafka's own generator, never one that starts with
  // '-': the format command's parser takes `-t -Xy...` for a missing argument (1 start in 64 failed so).
  let clusterId = randomBytes(16).toString('base64url');
  while (clusterId.startsWith('-')) clusterId = randomBytes(16).toString('base64url');
  const state: BrokerState = {
    workDir,
    bootstrap: `127.0.0.1:${port}`,
    port,
    saslBootstrap: `127.0.0.1:${saslPort}`,
    saslPort,
    tlsBootstrap: `127.0.0.1:${tlsPort}`,
    tlsPort,
    mtlsBootstrap: `127.0.0.1:${mtlsPort}`,
    mtlsPort,
    tls: brokerCertificates(join(workDir, 'tls')),
    controllerPort,
    clusterId,
  };
  writeFileSync(join(workDir, 'server.properties'), serverProperties(state));
  writeFileSync(join(workDir, 'log4j.properties'), LOG4J_PROPERTIES);
  const format = spawnSync(
    'java',
    javaArgs(libs, workDir, 'kafka.tools.StorageTool', [
      'format', '-t', clusterId, '-c', join(workDir, 'server.properties'), '--ignore-formatted',
      '--add-scram', `SCRAM-SHA-256=[name=${SASL_USER},password=${SASL_PASSWORD}]`,
      '--add-scram', `SCRAM-SHA-512=[name=${SASL_USER},password=${SASL_PASSWORD}]`,
    ]),
    { encoding: 'utf8' },
  );
  if (format.error) throw new Error(`java not found on PATH: ${JAVA_HINT}`);
  if (format.status !== 0) throw new Error(`formatting the Kafka log dir failed (exit ${format.status}):\n${format.stdout}${format.stderr}`);
  writeState(state);
  return state;
}

// ---- process ---------------------------------------------------------------------------------------

/** True when `pid` is alive and is a Kafka broker (guards against a stale state file and a reused pid). */
function isBrokerProcess(pid: number | undefined): boolean {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return cmdline.includes('kafka.Kafka');
  } catch {
    return true; // no /proc (macOS): trust the signal probe
  }
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Starts the broker: a new one in a new temp folder, or the one of `options.workDir` again (same ports,
 * same data) when it was stopped. Resolves once it logged `Kafka Server started`.
 */
export async function startBroker(options: StartOptions = {}): Promise<BrokerState> {
  const log = options.log ?? (() => {});
  requireTool('java', ['-version'], JAVA_HINT);
  const libs = ensureJars(log);
  const workDir = options.workDir ?? mkdtempSync(join(tmpdir(), 'tracehop-kafka-'));
  let state = readState(workDir);
  if (state && isBrokerProcess(state.pid)) return state;
  state ??= await prepare(workDir, libs);

  const logFile = join(workDir, 'server.log');
  const out = openSync(logFile, 'w');
  // Detached with its own process group and unreferenced, so a CLI `start` can exit and leave it running;
  // whoever stops it finds the pid in state.json.
  const child = spawn('java', javaArgs(libs, workDir, 'kafka.Kafka', [join(workDir, 'server.properties')]), {
    detached: true,
    stdio: ['ignore', out, out],
  });
  closeSync(out);
  let exited: number | null | undefined;
  child.once('exit', (code) => (exited = code));
  child.once('error', () => (exited = -1));
  child.unref();
  state = { ...state, pid: child.pid };
  writeState(state);
  log(`starting Kafka ${KAFKA_VERSION} on ${state.bootstrap} (pid ${child.pid}, dir ${workDir})`);

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  while (Date.now() < deadline) {
    if (exited !== undefined) {
      throw new Error(`the Kafka broker exited (code ${exited}) before it was ready; ${logFile}:\n${tail(logFile)}`);
    }
    let text = '';
    try {
      text = readFileSync(logFile, 'utf8');
    } catch {
      // not written yet
    }
    if (text.includes(READY_LINE)) return state;
    await sleep(200);
  }
  await stopBroker(workDir);
  throw new Error(`the Kafka broker was not ready within ${options.readyTimeoutMs ?? 60_000} ms; ${logFile}:\n${tail(logFile)}`);
}

/**
 * Stops the broker of `workDir` (SIGTERM, then SIGKILL after `graceMs`), keeping its data for a restart
 * unless `remove` is set.
 */
export async function stopBroker(workDir: string, options: { remove?: boolean; graceMs?: number } = {}): Promise<void> {
  const state = readState(workDir);
  const pid = state?.pid;
  if (state && pid && isBrokerProcess(pid)) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + (options.graceMs ?? 30_000);
    while (isBrokerProcess(pid) && Date.now() < deadline) await sleep(100);
    if (isBrokerProcess(pid)) {
      process.kill(pid, 'SIGKILL');
      while (isBrokerProcess(pid)) await sleep(50);
    }
  }
  if (state) writeState({ ...state, pid: undefined });
  if (options.remove) rmSync(workDir, { recursive: true, force: true });
}

export function brokerStatus(workDir: string): { running: boolean; state?: BrokerState } {
  const state = readState(workDir);
  return { running: !!state && isBrokerProcess(state.pid), state };
}

// ---- CLI -------------------------------------------------------------------------------------------

/** The CLI's broker lives in one well-known temp folder, so `stop` and `status` find what `start` made. */
function cliWorkDir(): string {
  return process.env.TRACEHOP_KAFKA_DIR || join(tmpdir(), `tracehop-kafka-${process.env.USER ?? 'user'}`);
}

async function main(argv: string[]): Promise<number> {
  const command = argv[0];
  const workDir = cliWorkDir();
  const say = (line: string) => process.stderr.write(line + '\n');
  switch (command) {
    case 'start': {
      const state = await startBroker({ workDir, log: say });
      process.stdout.write(state.bootstrap + '\n');
      return 0;
    }
    case 'stop':
      await stopBroker(workDir, { remove: true });
      say('stopped');
      return 0;
    case 'status': {
      const { running, state } = brokerStatus(workDir);
      if (running && state) {
        process.stdout.write(`running ${state.bootstrap} (sasl ${state.saslBootstrap}, tls ${state.tlsBootstrap}, mtls ${state.mtlsBootstrap}, ca ${state.tls.ca}, pid ${state.pid}, dir ${workDir})\n`);
        return 0;
      }
      process.stdout.write('stopped\n');
      return 3;
    }
    default:
      say('usage: broker.sh start|stop|status   (start prints the bootstrap address; TRACEHOP_KAFKA_DIR overrides the work dir)');
      return 2;
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
