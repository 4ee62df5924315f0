import { defineQuery } from '@temporalio/workflow';
import type { Character, CharacterInput } from '../../characters/character';

// What the character import workflow shares with the code that starts and watches it.

export const characterImportWorkflowType = 'importCharacters';

export interface CharacterImportInput {
  /** Stable key of this import chosen by the caller; the workflow id is derived from it. */
  importId: string;
  characters: CharacterInput[];
  /** Retry tuning; the defaults suit production, tests shorten them. */
  retry?: { initialIntervalMs?: number; maximumAttempts?: number };
}

export type CharacterImportItemStatus = 'pending' | 'created' | 'updated' | 'failed';

export interface CharacterImportProgress {
  total: number;
  /** Items finished, successfully or not. */
  done: number;
  failed: number;
  /** Per input item, in input order: the character's id once known, else null. */
  ids: (string | null)[];
  statuses: CharacterImportItemStatus[];
  /** Per failed item: its index and why. */
  failures: { index: number; message: string; type?: string | undefined }[];
}

export interface CharacterImportResult extends CharacterImportProgress {
  characters: (Character | null)[];
}

export const importProgressQuery = defineQuery<CharacterImportProgress>('importProgress');

/** One workflow per import key: starting the same import twice reaches the same execution. */
export function characterImportWorkflowId(importId: string): string {
  return `character-import-${importId}`;
}
