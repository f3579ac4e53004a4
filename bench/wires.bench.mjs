/**
 * The agent's wires: the same echo run (one turn, a new session) over `POST /v1/agent/run`, over
 * the OpenAI-compatible `POST /v1/chat/completions` and over A2A (a JSON-RPC `SendMessage`), in
 * one gateway (sqlite), so each ratio is what that wire's own mapping costs.
 */
import { measureHttp, warmUp } from './lib/http-load.mjs';
import { AGENT_RUN, CHAT_COMPLETION, a2aSendMessage, requestFor } from './lib/routes.mjs';
import { loadRatios } from './lib/table.mjs';
import { expectOk, startGateway } from './lib/targets.mjs';

export async function wiresBench(options, tmpDir) {
  const { child, base } = await startGateway('wires-sqlite', tmpDir);
  try {
    const restRequest = requestFor(base, AGENT_RUN);
    const openAiRequest = requestFor(base, CHAT_COMPLETION);
    const completion = await expectOk('chat completion', openAiRequest);
    if (completion.choices?.[0]?.message?.content !== 'hello') {
      throw new Error(
        `chat completion: unexpected answer ${JSON.stringify(completion).slice(0, 300)}`,
      );
    }
    const a2aRequest = requestFor(base, a2aSendMessage());
    const task = await expectOk('a2a SendMessage', a2aRequest);
    if (task.result?.task?.status?.state !== 'TASK_STATE_COMPLETED') {
      throw new Error(`a2a SendMessage: unexpected answer ${JSON.stringify(task).slice(0, 300)}`);
    }
    await warmUp([restRequest, openAiRequest, a2aRequest], options);
    const rest = await measureHttp({ request: restRequest, pid: child.pid, ...options });
    const openai = await measureHttp({ request: openAiRequest, pid: child.pid, ...options });
    const a2a = await measureHttp({ request: a2aRequest, pid: child.pid, ...options });
    return {
      rest,
      openai,
      a2a,
      openaiOverRest: loadRatios(openai, rest),
      a2aOverRest: loadRatios(a2a, rest),
    };
  } finally {
    await child.stop();
  }
}
