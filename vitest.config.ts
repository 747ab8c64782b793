import { defineConfig } from 'vitest/config';

const include = ['**/*.test.ts'];
const exclude = ['node_modules/**', 'dist/**'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: 'forks',
    setupFiles: ['test/setup/temp-dir.ts', 'test/setup/attribute-equality.ts'],
    // The Kafka tests are a project of their own so that their global setup (a real broker: a JVM,
    // ~10 s and up to 1 GiB) runs only when a Kafka test file is selected, not for every unit test run.
    // (`include`/`exclude` live in the projects: `extends` would concatenate them with the root's.)
    projects: [
      { extends: true, test: { name: 'unit', include, exclude: [...exclude, 'test/kafka/**'] } },
      {
        extends: true,
        test: {
          name: 'kafka',
          include: ['test/kafka/**/*.test.ts'],
          exclude,
          globalSetup: ['test/kafka/global-setup.ts'],
          // One file at a time: the outage test stops and restarts the shared broker.
          fileParallelism: false,
        },
      },
    ],
  },
});
