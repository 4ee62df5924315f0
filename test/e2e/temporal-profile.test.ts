import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { ServiceProcess } from '../../src/dev/child-process';
import { resolveTemporalCli } from '../../src/dev/temporal-cli';
import { temporalTarget } from '../../src/temporal-env';
import { eventually } from '../helpers/eventually';
import { startWorkerProcess, temporalAddress, uniqueTaskQueue } from '../helpers/temporal';

// One temporal.toml profile, read by our processes and by the `temporal` CLI: both must land in the profile's
// namespace (`orders`, which the dev server has), not in `default`, with no TEMPORAL_ADDRESS or
// TEMPORAL_NAMESPACE set.
const PROFILE = 'payments-local';
const NAMESPACE = 'orders';
let profileEnv: Record<string, string>;
let cliPath: string;
let worker: ServiceProcess | undefined;

beforeAll(async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'temporal-profile-')), 'temporal.toml');
  writeFileSync(
    file,
    [`[profile.${PROFILE}]`, `address = "${temporalAddress()}"`, `namespace = "${NAMESPACE}"`, ''].join('\n'),
  );
  profileEnv = { TEMPORAL_CONFIG_FILE: file, TEMPORAL_PROFILE: PROFILE };
  cliPath = (await resolveTemporalCli()).path;
});

afterAll(async () => {
  await worker?.stop();
});

/** The environment a process gets: the profile only, the tests' own address and namespace removed. */
function withProfile(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...profileEnv };
  delete env.TEMPORAL_ADDRESS;
  delete env.TEMPORAL_NAMESPACE;
  return env;
}

function temporalCli(args: string[], env: NodeJS.ProcessEnv) {
  return spawnSync(cliPath, [...args, '--output', 'json'], { encoding: 'utf8', env, timeout: 30_000 });
}

it('reads address and namespace from the profile; variables override it', () => {
  const target = temporalTarget({ TEMPORAL_DEV_PORT: 7233 }, withProfile());
  expect(target).toEqual({
    connection: { address: temporalAddress() },
    namespace: NAMESPACE,
    addressConfigured: true,
  });
  const overridden = temporalTarget(
    { TEMPORAL_DEV_PORT: 7233, TEMPORAL_NAMESPACE: 'default' },
    { ...withProfile(), TEMPORAL_ADDRESS: '127.0.0.1:1' },
  );
  expect(overridden.connection.address).toBe('127.0.0.1:1');
  expect(overridden.namespace).toBe('default');
});

it('names the variables when the profile or the file is missing', () => {
  expect(() =>
    temporalTarget({ TEMPORAL_DEV_PORT: 7233 }, { ...withProfile(), TEMPORAL_PROFILE: 'nope' }),
  ).toThrow(/TEMPORAL_PROFILE\/TEMPORAL_CONFIG_FILE .*Profile 'nope' not found/);
  expect(() =>
    temporalTarget({ TEMPORAL_DEV_PORT: 7233 }, { TEMPORAL_CONFIG_FILE: '/nonexistent/temporal.toml' }),
  ).toThrow(/TEMPORAL_CONFIG_FILE: \/nonexistent\/temporal.toml does not exist/);
});

it('a workflow our client starts with the profile is the one `temporal workflow describe` and `list` see', async () => {
  const target = temporalTarget({ TEMPORAL_DEV_PORT: 7233 }, withProfile());
  const connection = await Connection.connect(target.connection);
  const workflowId = `profile-${Date.now()}`;
  try {
    const client = new Client({ connection, namespace: target.namespace });
    // No worker: the run stays open, which is all `describe` and `list` need.
    await client.workflow.start('profileProbe', { workflowId, taskQueue: uniqueTaskQueue('profile') });

    const described = temporalCli(['workflow', 'describe', '--workflow-id', workflowId], withProfile());
    expect(described.stderr).toBe('');
    expect(described.status).toBe(0);
    expect(JSON.parse(described.stdout)).toMatchObject({
      workflowExecutionInfo: { execution: { workflowId }, type: { name: 'profileProbe' } },
    });

    const listed = await eventually(
      () => temporalCli(['workflow', 'list', '--query', `WorkflowId = '${workflowId}'`], withProfile()),
      (result) => result.status === 0 && result.stdout.includes(workflowId),
      { what: 'the workflow in `temporal workflow list`' },
    );
    expect(listed.stdout).toContain('profileProbe');

    // Without the profile the CLI looks in `default`, where the workflow is not.
    const elsewhere = temporalCli(['workflow', 'describe', '--workflow-id', workflowId], {
      ...process.env,
      TEMPORAL_NAMESPACE: 'default',
    });
    expect(elsewhere.status).not.toBe(0);
    expect(elsewhere.stderr).toMatch(/not found/i);
  } finally {
    await connection.close();
  }
});

it('the worker process polls in the profile namespace, as `temporal task-queue describe` shows', async () => {
  const taskQueue = uniqueTaskQueue('profile-worker');
  // An empty variable counts as unset: the worker falls back to the profile for its address.
  worker = await startWorkerProcess(taskQueue, 'http://127.0.0.1:1', {
    ...profileEnv,
    TEMPORAL_ADDRESS: '',
    TEMPORAL_NAMESPACE: '',
  });
  const described = await eventually(
    () => temporalCli(['task-queue', 'describe', '--task-queue', taskQueue], withProfile()),
    (result) => result.status === 0 && result.stdout.includes('"identity"'),
    { what: `a poller on ${taskQueue} in ${NAMESPACE}` },
  );
  expect(described.stdout).toContain(`${worker.child.pid}@`);
});
