import type { z } from 'zod';

/** What the configuration reference says of one variable; its default is the schema's unless `shown` here. */
export interface VariableDoc {
  meaning: string;
  /** How the default reads where the schema's value says too little (e.g. "the profile's"). */
  default?: string;
}

/** A group of variables one concern owns, each defined once here and read by every program that needs it. */
export interface SettingsPiece<Shape extends z.ZodRawShape> {
  title: string;
  shape: Shape;
  docs: { [Name in keyof Shape]: VariableDoc };
}

export function settingsPiece<Shape extends z.ZodRawShape>(
  title: string,
  shape: Shape,
  docs: { [Name in keyof Shape]: VariableDoc },
): SettingsPiece<Shape> {
  return { title, shape, docs };
}

/** Some variables of a piece, for a program that reads only those. */
export function someOf<Shape extends z.ZodRawShape, Name extends keyof Shape & string>(
  piece: SettingsPiece<Shape>,
  ...names: Name[]
): Pick<Shape, Name> {
  return Object.fromEntries(names.map((name) => [name, piece.shape[name]])) as Pick<Shape, Name>;
}

/** The values a piece's variables parse to. */
export type SettingsOf<Piece> =
  Piece extends SettingsPiece<infer Shape> ? z.output<z.ZodObject<Shape>> : never;
