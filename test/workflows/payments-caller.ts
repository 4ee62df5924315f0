import { ApplicationFailure, createNexusServiceClient } from '@temporalio/workflow';
import type { OperationInput } from 'nexus-rpc';
import { paymentsFailure, paymentsService } from '../../src/nexus/service';

type Operations = typeof paymentsService.operations;
type OperationName = keyof Operations;

/** A caller in the `orders` namespace that runs one payments operation; its failure names the payments type. */
export async function callPayments<Name extends OperationName>(
  endpoint: string,
  operation: Name,
  input: OperationInput<Operations[Name]>,
): Promise<unknown> {
  const payments = createNexusServiceClient({ service: paymentsService, endpoint });
  try {
    return await payments.executeOperation(operation, input);
  } catch (error) {
    const failure = paymentsFailure(error);
    if (!failure) throw error;
    throw ApplicationFailure.nonRetryable(failure.message, failure.type);
  }
}
