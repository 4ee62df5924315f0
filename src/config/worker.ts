import { z } from 'zod';
import { flag, port } from './forms';
import { settingsPiece } from './piece';

const deploymentName = z.string().regex(/^[A-Za-z0-9_-]{1,255}$/, 'letters, digits, _ and - only');

export const workerSettings = settingsPiece(
  'Worker',
  {
    WORKER_METRICS_PORT: port.default(9464),
    WORKER_MAX_CACHED_WORKFLOWS: z.coerce.number().int().min(0).default(100),
    WORKFLOW_BUNDLE_PATH: z.string().min(1).optional(),
    // Off by default: the test suites run unversioned workers beside the process on one task queue.
    WORKER_VERSIONING: flag.default('0'),
    TEMPORAL_DEPLOYMENT_NAME: deploymentName.default('payments-worker'),
    TEMPORAL_BUILD_ID: deploymentName.optional(),
  },
  {
    WORKER_METRICS_PORT: { meaning: 'Prometheus metrics of the worker (SDK runtime telemetry)' },
    WORKER_MAX_CACHED_WORKFLOWS: {
      meaning:
        'workflows the worker keeps in memory (about 0.5 MB each); others replay on their next task; see ' +
        '[Performance](./performance.md#the-workers-memory)',
    },
    WORKFLOW_BUNDLE_PATH: {
      meaning: 'a prebuilt workflow bundle (`npm run workflow:bundle -- <file>`); unset = bundle at start',
    },
    WORKER_VERSIONING: {
      meaning: '`1`: the worker polls as a version of a Worker Deployment; see [Deploying](./deploying.md)',
    },
    TEMPORAL_DEPLOYMENT_NAME: { meaning: 'the Worker Deployment the worker is a version of' },
    TEMPORAL_BUILD_ID: {
      meaning: "the version's build id; unset = the workflow bundle's content hash, else the git commit",
    },
  },
);
