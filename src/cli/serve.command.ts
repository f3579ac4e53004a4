import { Command, Option } from 'nest-commander';
import type { ServeOptions } from './serve-config.js';
import { SvcCommand } from './svc-command.js';

@Command({
  name: 'serve',
  description: 'Start the composed gateway (control, MCP, messaging, studio)',
})
export class ServeCommand extends SvcCommand {
  async run(_args: string[], options: ServeOptions = {}): Promise<void> {
    // The app (and its dependencies) load only now: `svc --version` or a mistake is answered
    // without them.
    const { serveGateway } = await import('./serve-gateway.js');
    await serveGateway(options);
  }

  @Option({
    flags: '--host <host>',
    description: 'interface to bind (default 127.0.0.1, env SVC_HOST)',
  })
  parseHost(value: string): string {
    return value;
  }

  @Option({ flags: '--port <port>', description: 'port to listen on (default 8080, env SVC_PORT)' })
  parsePort(value: string): string {
    return value;
  }

  @Option({ flags: '--tenant <tenant_id>', description: 'default tenant (env SVC_TENANT)' })
  parseTenant(value: string): string {
    return value;
  }

  @Option({
    flags: '--otel-endpoint <url>',
    description:
      'OTLP/HTTP collector base URL (env OTEL_EXPORTER_OTLP_ENDPOINT; the flag wins over every endpoint variable)',
  })
  parseOtelEndpoint(value: string): string {
    return value;
  }

  @Option({ flags: '--insecure', description: 'allow a non-loopback host without any API key' })
  parseInsecure(): boolean {
    return true;
  }
}
