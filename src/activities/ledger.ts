import { count } from './business-metrics';

// What the lifecycle's ledger reports to operators outside Temporal: its discrepancies, counted on the
// worker's metrics endpoint (the alert in deploy/prometheus/alerts.yml watches the counter).

export type RecordedDiscrepancies = { provider: string; reason: string; count: number };

export function createLedgerActivities() {
  return {
    /** Adds what a reconciliation recorded to ledger_discrepancies_total. */
    countLedgerDiscrepancies: async (recorded: RecordedDiscrepancies): Promise<void> => {
      for (let each = 0; each < recorded.count; each += 1) {
        count('ledgerDiscrepancies', { provider: recorded.provider, reason: recorded.reason });
      }
    },
  };
}

export type LedgerActivities = ReturnType<typeof createLedgerActivities>;
