// Creating a Kafka topic and waiting until every partition has a leader, as a producer would otherwise
// see the topic half-made. One helper for the bench (the Collector's topic in the Kafka row) and the
// Kafka tests; it lives under bench/ because the bench's build does not include test/.
import { Admin } from '@platformatic/kafka';

export async function createTopic(bootstrap: string, topic: string, partitions: number): Promise<void> {
  const admin = new Admin({ clientId: 'tracehop-admin', bootstrapBrokers: [bootstrap] });
  try {
    await admin.createTopics({ topics: [topic], partitions, replicas: 1 });
    for (let i = 0; i < 100; i++) {
      const info = (await admin.metadata({ topics: [topic], forceUpdate: true })).topics.get(topic);
      if (info && info.partitions.every((p) => p.leader >= 0)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`topic ${topic} has no leaders`);
  } finally {
    await admin.close();
  }
}
