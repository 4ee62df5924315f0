import { count } from './business-metrics';

// What the lifecycle's ledger reports to operators outside Temporal: its discrepancies, counted on the
// worker's metrics endpoint (the alert in deploy/prometheus/alerts.yml watches the counter).

/** What one reconciliation recorded (newly open) and resolved (opened by an earlier read, held now). */
export type RecordedDiscrepancies = { provider: string; reason: string; count: number; resolved?: number };

export function createLedgerActivities() {
  return {
    /**
     * Adds what a reconciliation recorded to ledger_discrepancies_total and what it resolved to
     * ledger_discrepancies_resolved_total: the open ones are the first less the second.
     */
    countLedgerDiscrepancies: async (recorded: RecordedDiscrepancies): Promise<void> => {
      const labels = { provider: recorded.provider, reason: recorded.reason };
      for (let each = 0; each < recorded.count; each += 1) count('ledgerDiscrepancies', labels);
      for (let each = 0; each < (recorded.resolved ?? 0); each += 1) {
        count('ledgerDiscrepanciesResolved', labels);
      }
    },
  };
}

export type LedgerActivities = ReturnType<typeof createLedgerActivities>;
