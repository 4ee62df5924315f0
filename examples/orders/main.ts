import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { codecKeysFromFile } from '../../src/codec/codec-keys';
import { encryptingDataConverter } from '../../src/codec/data-converter';
import { DEV_ENDPOINT_KEY_FILE } from '../../src/codec/endpoint-keys';
import { codecKeysSchema } from '../../src/codec/key-schema';
import { EncryptionCodec } from '../../src/codec/payload-encryption';
import { loadConfig } from '../../src/config';
import { temporalTarget } from '../../src/temporal-env';
import { ORDERS_NAMESPACE } from '../../src/nexus/endpoint';
import type { orderPayment } from './workflows';

/**
 * The order system's side, for `npm start`'s stack: a worker in the `orders` namespace and one order paid for
 * through the payments endpoint.
 *   npx tsx examples/orders/main.ts <authorizationId> [firstShipmentAmount]
 * Its payloads are encrypted with the `orders` namespace's endpoint key: ORDERS_ENDPOINT_KEYS
 * (`keyId:base64`, the key payments has for `orders` in NEXUS_ENDPOINT_KEYS), or the local stack's generated
 * one. It never holds the payments namespace's PAYLOAD_CODEC_KEYS.
 */
async function main() {
  const [authorizationId, firstShipmentAmount = '30.00'] = process.argv.slice(2);
  if (!authorizationId) throw new Error('usage: npx tsx examples/orders/main.ts <authorizationId> [amount]');
  const config = loadConfig();
  const given = process.env.ORDERS_ENDPOINT_KEYS;
  const keys = given
    ? codecKeysSchema.parse(given)
    : codecKeysFromFile(DEV_ENDPOINT_KEY_FILE, 'orders-endpoint-dev');
  const dataConverter = encryptingDataConverter(new EncryptionCodec(keys));
  // The same server as the payments worker, in the orders namespace (whatever the profile's namespace).
  const temporal = temporalTarget(config);
  const taskQueue = 'orders';
  const nativeConnection = await NativeConnection.connect(temporal.connection);
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: ORDERS_NAMESPACE,
    taskQueue,
    dataConverter,
    workflowsPath: require.resolve('./workflows'),
  });
  const connection = await Connection.connect(temporal.connection);
  const orders = new Client({ connection, namespace: ORDERS_NAMESPACE, dataConverter });
  const orderId = `order-${authorizationId}`;
  const result = await worker.runUntil(
    orders.workflow.execute<typeof orderPayment>('orderPayment', {
      taskQueue,
      workflowId: orderId,
      args: [{ orderId, authorizationId, firstShipmentAmount }],
    }),
  );
  console.log(`Order ${orderId} (namespace ${ORDERS_NAMESPACE}, workflow id ${orderId}):`);
  console.log(`  captures ${result.captureIds.join(', ')}`);
  console.log(
    `  outcome  ${result.outcome.status}, captured ${result.outcome.capturedAmount} ${result.outcome.currency}`,
  );
  await connection.close();
  await nativeConnection.close();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
