// The start-up check of the target topic: present, created when the config asks, or a clear error.
import { Admin } from '@platformatic/kafka';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ConnectionSettings } from './client-options.ts';

export class TopicMissingError extends Error {
  constructor(topic: string) {
    super(`topic "${topic}" does not exist; create it or set create_topic: {partitions, replication_factor}`);
    this.name = 'TopicMissingError';
  }
}

export interface TopicCheck {
  created: boolean;
  partitions: number;
}

/** Resolves once `topic` exists (creating it when `create` is set); rejects with TopicMissingError or a client error. */
export async function ensureTopic(
  settings: ConnectionSettings,
  topic: string,
  create: { partitions: number; replication_factor: number } | undefined,
): Promise<TopicCheck> {
  // A short-lived admin client: retries are the caller's business, so one attempt per call.
  const admin = new Admin({ ...settings, clientId: `${settings.clientId}-admin`, retries: false });
  try {
    let created = false;
    if (!(await admin.listTopics()).includes(topic)) {
      if (!create) throw new TopicMissingError(topic);
      try {
        await admin.createTopics({ topics: [topic], partitions: create.partitions, replicas: create.replication_factor });
        created = true;
      } catch (error) {
        // Another tracehop may have created it meanwhile; anything else is a real failure.
        if (!(await admin.listTopics()).includes(topic)) throw error;
      }
    }
    // A new topic's partitions need a leader before the first produce: wait until metadata shows them.
    const deadline = Date.now() + settings.timeout;
    for (;;) {
      try {
        const metadata = await admin.metadata({ topics: [topic], forceUpdate: true });
        const info = metadata.topics.get(topic);
        if (info && info.partitions.every((p) => p.leader >= 0)) return { created, partitions: info.partitionsCount };
      } catch (error) {
        if (Date.now() > deadline) throw error;
      }
      if (Date.now() > deadline) throw new Error(`topic "${topic}" has partitions without a leader after ${settings.timeout} ms`);
      await sleep(100);
    }
  } finally {
    await admin.close();
  }
}
