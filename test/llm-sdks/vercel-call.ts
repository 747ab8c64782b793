// One chat call made by the Vercel AI SDK (`generateText` with the OpenAI provider) against a local
// OpenAI-compatible server, traced by the SDK's own OpenTelemetry integration (package @ai-sdk/otel) into
// an OpenTelemetry JS tracer provider that exports OTLP/HTTP protobuf to `tracesUrl`.
// `integration`: 'semconv' is the integration's default class (`OpenTelemetry`, GenAI semantic-convention
// attributes, `gen_ai.*`); 'legacy' is `LegacyOpenTelemetry`, the `ai.*` attributes of the SDK's versions
// before 7.
import { createOpenAI } from '@ai-sdk/openai';
import { LegacyOpenTelemetry, OpenTelemetry } from '@ai-sdk/otel';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { generateText } from 'ai';
import { QUESTION } from './expected.ts';

export type VercelIntegration = 'semconv' | 'legacy';

export async function vercelChatCall(options: { tracesUrl: string; openaiUrl: string; integration: VercelIntegration; question?: string }): Promise<string> {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': `same-call-vercel-${options.integration}` }),
    spanProcessors: [new SimpleSpanProcessor({ exporter: new OTLPTraceExporter({ url: options.tracesUrl }) })],
  });
  const tracer = provider.getTracer('ai');
  const telemetry = options.integration === 'semconv' ? new OpenTelemetry({ tracer }) : new LegacyOpenTelemetry({ tracer });
  const openai = createOpenAI({ baseURL: options.openaiUrl, apiKey: 'sk-test-not-a-secret' });
  try {
    const result = await generateText({
      model: openai.chat('gpt-4o-mini'),
      // Version 7 takes the system message as `instructions` only.
      instructions: 'Answer in one word.',
      messages: [{ role: 'user', content: options.question ?? QUESTION }],
      temperature: 0.2,
      maxOutputTokens: 16,
      experimental_telemetry: { isEnabled: true, functionId: 'capital-quiz', integrations: telemetry },
    });
    return result.text;
  } finally {
    await provider.forceFlush();
    await provider.shutdown();
  }
}
