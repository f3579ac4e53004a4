/** A two-step pipeline whose second step (`pay`) waits for approval; built-in tools only. */
export function refundGraph(tenant: string) {
  return {
    tenant_id: tenant,
    topology: 'pipeline',
    steps: [
      { id: 'look', kind: 'tool', tool: 'echo', arguments: { text: '{{input}}' } },
      {
        id: 'pay',
        kind: 'tool',
        tool: 'echo',
        depends_on: ['look'],
        require_approval: true,
        arguments: { text: 'paid {{steps.look.output}}' },
      },
    ],
  };
}
