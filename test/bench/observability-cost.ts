/**
 * What observability adds to each request, in process, without HTTP or a
 * database: `node test/bench/observability-cost.ts [iterations] [rounds]`
 * (defaults 200000, 5). Prints CPU ns per request of each piece, best of the
 * rounds, alternated so machine noise hits each alike:
 * - bare: a ServerResponse made and finished (the floor every variant pays);
 * - envelope: the same through server/request-envelope.ts as the engine runs
 *   it by default with `--log-level warn` (request id, X-Request-Id, the
 *   'finish' listener, the metrics' HTTP observer; no http-log line written);
 * - envelope+http-log: the same at level info with the http-log line
 *   serialized (to a sink, not stdout);
 * - metrics.graphqlOperation: counting and timing one GraphQL operation;
 * - steps (tracing off): the eight `steps?.begin()` null checks of one request.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { createLogger } from '../../engine/logger.ts';
import { EngineMetrics } from '../../engine/observability/metrics.ts';
import type { StepSpans } from '../../engine/observability/tracing.ts';
import { requestEnvelope, type Dispatch } from '../../engine/server/request-envelope.ts';

const iterations = Number(process.argv[2] ?? 200_000);
const rounds = Number(process.argv[3] ?? 5);

const socket = new Socket();
function request(): { req: IncomingMessage; res: ServerResponse } {
  const req = new IncomingMessage(socket);
  req.method = 'POST';
  req.url = '/v1/graphql';
  req.headers = { 'content-type': 'application/json' };
  const res = new ServerResponse(req);
  return { req, res };
}

const finish: Dispatch = (_req, res) => {
  res.statusCode = 200;
  res.emit('finish');
};
const metrics = new EngineMetrics();
const observers = [(req: IncomingMessage, res: ServerResponse, _ctx: unknown, s: number) => metrics.httpRequest(req.url, res.statusCode, s)];
const quiet = requestEnvelope({ logger: createLogger({ level: 'warn', write: () => {} }), observers, tracer: null }, finish);
let bytes = 0;
const loud = requestEnvelope({ logger: createLogger({ level: 'info', write: (l) => (bytes += l.length) }), observers, tracer: null }, finish);
let steps: StepSpans | null = null;
// Keep the optimizer from seeing a constant null.
if (process.argv.includes('--never')) steps = {} as StepSpans;

const variants: ReadonlyArray<readonly [string, () => void]> = [
  [
    'bare',
    () => {
      const { req, res } = request();
      finish(req, res);
    },
  ],
  [
    'envelope (level warn)',
    () => {
      const { req, res } = request();
      quiet(req, res);
    },
  ],
  [
    'envelope + http-log (level info)',
    () => {
      const { req, res } = request();
      loud(req, res);
    },
  ],
  ['metrics.graphqlOperation', () => metrics.graphqlOperation('query', true, 0.001)],
  [
    'steps, tracing off (8 checks)',
    () => {
      steps?.begin('parse');
      steps?.begin('validate');
      steps?.begin('allow');
      steps?.begin('toIr');
      steps?.begin('plan');
      steps?.begin('bind');
      steps?.begin('run');
      steps?.begin('respond');
    },
  ],
];

const best = new Map<string, number>();
for (let r = 0; r < rounds; r++) {
  for (const [name, fn] of variants) {
    for (let i = 0; i < 1000; i++) fn();
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) fn();
    const used = process.cpuUsage(start);
    const ns = ((used.user + used.system) * 1000) / iterations;
    best.set(name, Math.min(best.get(name) ?? Infinity, ns));
  }
}
console.log(`CPU ns per request, best of ${rounds} rounds of ${iterations} (http-log bytes written: ${bytes})`);
for (const [name] of variants) console.log(`${name.padEnd(36)} ${(best.get(name) as number).toFixed(0)}`);
