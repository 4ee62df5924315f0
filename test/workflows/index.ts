// The bundle tests run: every workflow of the service, plus the test-only ones.
export * from '../../src/workflows';
export * from './smoke';
export * from './payments-caller';
export * from '../../examples/orders/workflows';
