import type { WorkflowHandle } from '@temporalio/client';
import type { RecordingStack } from './recording-stack';

/** One recorded history: test/histories/<name>.json. */
export interface Scenario {
  name: string;
  /** What the history shows, for the recorder's output. */
  shows: string;
  /** Drives the scenario until its run shows that; answers the run (a handle of its own namespace's client). */
  drive(stack: RecordingStack): Promise<WorkflowHandle>;
}
