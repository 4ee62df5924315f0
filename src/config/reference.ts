import { z } from 'zod';
import type { SettingsPiece, VariableDoc } from './piece';
import { programSchemas, settingsPieces } from './programs';
import { renamedVariables } from './renamed-variables';

// The reference tables of docs/configuration.md, written from the schemas (npm run config:docs).

export const REFERENCE_START =
  '<!-- configuration reference: generated from src/config/ by `npm run config:docs`; edit the schemas -->';
export const REFERENCE_END = '<!-- end of the generated configuration reference -->';

/** The default as the reference shows it: the doc's words, or what the schema gives an unset variable. */
function shownDefault(schema: z.core.$ZodType, doc: VariableDoc): string {
  if (doc.default) return doc.default;
  const parsed = z.safeParse(schema, undefined);
  if (!parsed.success || parsed.data === undefined) return 'unset';
  const value: unknown = parsed.data;
  if (Array.isArray(value)) return value.length === 0 ? 'none' : `\`${value.join(',')}\``;
  return `\`${String(value)}\``;
}

function readersOf(name: string): string {
  const readers = Object.entries(programSchemas)
    .filter(([, schema]) => name in schema.shape)
    .map(([program]) => program);
  return readers.length > 0 ? readers.join(', ') : 'the tools only';
}

function pieceTable(piece: SettingsPiece<z.ZodRawShape>): string[] {
  const rows = Object.entries(piece.shape).map(([name, schema]) => {
    const doc = piece.docs[name] as VariableDoc;
    const cells = [`\`${name}\``, shownDefault(schema, doc), doc.meaning, readersOf(name)];
    return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
  });
  return [
    `### ${piece.title}`,
    '',
    '| variable | default | meaning | read by |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ];
}

function renamedTable(): string[] {
  return [
    "### PayPal's settings under their names before 1.0",
    '',
    '| before 1.0 | from 1.0 |',
    '| --- | --- |',
    ...Object.entries(renamedVariables).map(([name, oldName]) => `| \`${oldName}\` | \`${name}\` |`),
    '',
  ];
}

/** The generated part of the page, markers included (unformatted: the writer and the test format it). */
export function configurationReference(): string {
  const pieces = settingsPieces as readonly SettingsPiece<z.ZodRawShape>[];
  return [REFERENCE_START, '', ...pieces.flatMap(pieceTable), ...renamedTable(), REFERENCE_END].join('\n');
}

/** The page with its generated part replaced; the prose around the markers stays. */
export function withReference(page: string): string {
  const start = page.indexOf(REFERENCE_START);
  const end = page.indexOf(REFERENCE_END);
  if (start < 0 || end < start) throw new Error('docs/configuration.md has no generated reference markers');
  return page.slice(0, start) + configurationReference() + page.slice(end + REFERENCE_END.length);
}
