import type { Client, WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import type { importCharacters } from '../workflows/character-import/workflow';
import {
  characterImportWorkflowId,
  characterImportWorkflowType,
  importProgressQuery,
  type CharacterImportInput,
  type CharacterImportProgress,
} from '../workflows/character-import/definitions';

export type CharacterImportHandle = WorkflowHandleWithFirstExecutionRunId<typeof importCharacters>;

/**
 * Starts the import keyed by `input.importId`. While one with that key runs, this returns its handle
 * instead of starting a second; once it has closed, the import runs again and, matching what it stored
 * the first time, updates those characters rather than creating new ones.
 */
export function startCharacterImport(
  client: Client,
  input: CharacterImportInput,
  options: { taskQueue: string },
): Promise<CharacterImportHandle> {
  return client.workflow.start<typeof importCharacters>(characterImportWorkflowType, {
    taskQueue: options.taskQueue,
    workflowId: characterImportWorkflowId(input.importId),
    workflowIdConflictPolicy: 'USE_EXISTING',
    workflowIdReusePolicy: 'ALLOW_DUPLICATE',
    args: [input],
  });
}

export function characterImportProgress(handle: CharacterImportHandle): Promise<CharacterImportProgress> {
  return handle.query(importProgressQuery);
}
