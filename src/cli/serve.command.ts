import type { Server } from 'node:http';
import { Command, Option } from 'nest-commander';
import { Logger } from 'nestjs-pino';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { createGatewayApp } from '../app/create-app.js';
import { ConfigError } from '../config/config-error.js';
import { type GatewayConfig, authDisabled } from '../config/gateway-config.js';
import { type EnvSource, type SourceLabels, loadConfig } from '../config/load-config.js';
import { SvcCommand } from './svc-command.js';

interface ServeOptions {
  host?: string;
  port?: string;
  tenant?: string;
  otelEndpoint?: string;
  insecure?: boolean;
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i;

/** Flags win over the environment; messages then name the flag, not the variable. */
export function serveConfig(options: ServeOptions, env: EnvSource = process.env): GatewayConfig {
  const overrides: EnvSource = {};
  const labels: SourceLabels = {};
  const flag = (name: keyof ServeOptions, variable: keyof SourceLabels, label: string) => {
    const value = options[name];
    if (value === undefined) return;
    overrides[variable] = String(value);
    labels[variable] = label;
  };
  flag('host', 'SVC_HOST', '--host');
  flag('port', 'SVC_PORT', '--port');
  flag('tenant', 'SVC_TENANT', '--tenant');
  flag('otelEndpoint', 'OTEL_EXPORTER_OTLP_ENDPOINT', '--otel-endpoint');
  flag('insecure', 'SVC_INSECURE', '--insecure');
  const config = loadConfig({ ...env, ...overrides }, labels);
  const { host, insecure } = config.server;
  if (authDisabled(config.auth) && !LOOPBACK.test(host) && !insecure) {
    throw new ConfigError(
      `refusing to serve on ${host} without SVC_API_KEY: every caller would have full access. ` +
        'Set SVC_API_KEY (or SVC_KEYS_FILE), bind 127.0.0.1, or pass --insecure',
    );
  }
  return config;
}

/** Closes the app on SIGTERM/SIGINT: stop accepting, drain in-flight requests, then release. */
function closeOnSignals(app: NestExpressApplication, drainMs: number): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      const server: Server = app.getHttpServer();
      // Requests still running after the drain window are cut so the pod exits before SIGKILL.
      const cut = setTimeout(() => server.closeAllConnections(), drainMs);
      cut.unref();
      void app
        .close()
        .catch((error: unknown) =>
          process.stderr.write(`svc: error during shutdown: ${String(error)}\n`),
        )
        .finally(() => {
          clearTimeout(cut);
          resolve();
        });
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

@Command({
  name: 'serve',
  description: 'Start the composed gateway (control, MCP, messaging, studio)',
})
export class ServeCommand extends SvcCommand {
  async run(_args: string[], options: ServeOptions = {}): Promise<void> {
    const config = serveConfig(options);
    const app = await createGatewayApp(config);
    const closed = closeOnSignals(app, config.server.shutdownTimeoutMs);
    await app.listen(config.server.port, config.server.host);
    app
      .get(Logger)
      .log(`svc gateway listening on http://${config.server.host}:${config.server.port}`, 'Serve');
    await closed;
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
    description: 'OTLP/HTTP collector address (env OTEL_EXPORTER_OTLP_ENDPOINT)',
  })
  parseOtelEndpoint(value: string): string {
    return value;
  }

  @Option({ flags: '--insecure', description: 'allow a non-loopback host without any API key' })
  parseInsecure(): boolean {
    return true;
  }
}
