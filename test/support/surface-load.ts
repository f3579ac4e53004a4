import type request from 'supertest';

/** How one answer of a surface reads: served, refused for now (503 + Retry-After), or neither. */
export type Verdict = 'ok' | 'unavailable' | 'other';

export interface Surface {
  name: string;
  /** One request; a fresh one every time (ids that must be unique are made here). */
  send(): request.Test;
  judge(res: request.Response): Verdict;
  /** Needs no backend (a liveness probe): never refused. */
  independent?: boolean;
}

export interface Answer {
  surface: string;
  startedAt: number;
  endedAt: number;
  verdict: Verdict;
  /** Status and a short body, to explain an answer that is `other`. */
  said: string;
}

/** 503 problem+json with `Retry-After`: how a REST surface refuses while the backend is away. */
export function isUnavailableProblem(res: request.Response): boolean {
  return (
    res.status === 503 &&
    /^application\/problem\+json/.test(res.headers['content-type'] ?? '') &&
    (res.body as { type?: string }).type === 'urn:svc:problem:state-unavailable' &&
    Number(res.headers['retry-after']) > 0
  );
}

/**
 * Sends requests to every surface at once, `perSurface` at a time on each, until stopped, and
 * keeps every answer with its times. A request that gets no answer within `boundMs` counts as
 * `other`, so a hang fails the test instead of stalling it.
 */
export class SurfaceLoad {
  readonly answers: Answer[] = [];
  private stopped = false;
  private readonly loops: Array<Promise<void>>;

  constructor(
    private readonly surfaces: readonly Surface[],
    private readonly boundMs: number,
    perSurface = 1,
  ) {
    this.loops = surfaces.flatMap((surface) =>
      Array.from({ length: perSurface }, () => this.drive(surface)),
    );
  }

  private async drive(surface: Surface): Promise<void> {
    while (!this.stopped) {
      const startedAt = Date.now();
      let verdict: Verdict;
      let said: string;
      try {
        const res = await surface.send().timeout(this.boundMs);
        verdict = surface.judge(res);
        said = `${res.status} ${res.text.slice(0, 300)}`;
      } catch (error) {
        verdict = 'other';
        said = `no answer: ${error instanceof Error ? error.message : String(error)}`;
      }
      this.answers.push({ surface: surface.name, startedAt, endedAt: Date.now(), verdict, said });
    }
  }

  /** Answers of `surface` to requests sent and answered within [from, to]. */
  within(surface: string, from: number, to = Number.POSITIVE_INFINITY): Answer[] {
    return this.answers.filter(
      (a) => a.surface === surface && a.startedAt >= from && a.endedAt <= to,
    );
  }

  /**
   * True when every surface has had at least `count` answers within [from, to] (with `verdict`,
   * if given; a surface that needs no backend is never expected to be `unavailable`).
   */
  everySurface(count: number, from: number, to?: number, verdict?: Verdict): boolean {
    return this.surfaces
      .filter((surface) => !(verdict === 'unavailable' && surface.independent))
      .every(
        ({ name }) =>
          this.within(name, from, to).filter((a) => !verdict || a.verdict === verdict).length >=
          count,
      );
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.loops);
  }
}
