import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { runSvc } from './support/cli.js';

// No Docker engine runs here: these checks keep docker-compose.yml, the Dockerfile and the load
// balancer config consistent with the gateway they deploy.
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }> | string[];
}

describe('deployment files', () => {
  const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service> };

  it('runs PostgreSQL, two gateway replicas on it and a load balancer', () => {
    expect(Object.keys(compose.services).sort()).toEqual([
      'gateway-1',
      'gateway-2',
      'lb',
      'postgres',
    ]);
    for (const name of ['gateway-1', 'gateway-2']) {
      const gateway = compose.services[name];
      expect(gateway.environment).toMatchObject({
        SVC_STATE_BACKEND: 'postgres',
        SVC_STATE_DSN: expect.stringMatching(/^postgres:\/\/.+@postgres:5432\//),
      });
      expect(gateway.environment?.SVC_API_KEY).toBeDefined();
      expect(gateway.healthcheck?.test.join(' ')).toContain('/readyz');
      expect(gateway.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
    }
  });

  it('lets the load balancer route only to replicas whose /readyz answers 200', () => {
    const haproxy = read('deploy/haproxy.cfg');
    expect(haproxy).toContain('option httpchk GET /readyz');
    expect(haproxy).toContain('http-check expect status 200');
    expect(haproxy).toMatch(/server gateway-1 gateway-1:8080 check/);
    expect(haproxy).toMatch(/server gateway-2 gateway-2:8080 check/);
  });

  it('starts the replicas with options the CLI knows, on the port the balancer uses', async () => {
    const help = await runSvc(['serve', '--help']);
    const command = compose.services['gateway-1'].command ?? [];
    expect(command[0]).toBe('serve');
    for (const flag of command.filter((part) => part.startsWith('--')))
      expect(help.stdout).toContain(flag);
    expect(command.join(' ')).toContain('--port 8080');
    expect(read('Dockerfile')).toContain('CMD ["serve", "--host", "0.0.0.0", "--port", "8080"]');
  });
});
