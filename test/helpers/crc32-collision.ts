import { crc32 } from 'node:zlib';

/**
 * `template` with `slot` (a run of "@" in it, e.g. inside a JSON string) rewritten to letters "@".."O" so the
 * bytes' CRC-32 equals `target`. CRC-32 is affine over GF(2): flipping a bit changes the CRC by a fixed
 * delta, so the low 4 bits of each slot character are chosen by solving a linear system (at least 8 characters).
 */
export function withCrc32(template: string, slot: string, target: number): string {
  const bytes = Buffer.from(template, 'utf8');
  const at = bytes.indexOf(slot);
  if (at < 0 || !/^@{8,}$/.test(slot)) throw new Error('the slot is a run of at least 8 "@" in the template');
  const baseCrc = crc32(bytes);
  const flips: Array<{ offset: number; mask: number }> = [];
  // Reduced basis of the deltas: pivot bit -> (delta, which flips make it).
  const basis = new Map<number, { delta: number; flips: bigint }>();
  const reduce = (delta: number, made: bigint) => {
    for (let bit = 31; bit >= 0 && delta !== 0; bit -= 1) {
      const row = basis.get(bit);
      if ((delta >>> bit) & 1 && row) {
        delta = (delta ^ row.delta) >>> 0;
        made ^= row.flips;
      }
    }
    return { delta, made };
  };
  for (let index = 0; index < slot.length; index += 1) {
    for (let bit = 0; bit < 4; bit += 1) {
      const flipped = Buffer.from(bytes);
      flipped[at + index]! ^= 1 << bit;
      const id = BigInt(flips.length);
      flips.push({ offset: at + index, mask: 1 << bit });
      const { delta, made } = reduce((crc32(flipped) ^ baseCrc) >>> 0, 1n << id);
      if (delta !== 0) basis.set(31 - Math.clz32(delta), { delta, flips: made });
    }
  }
  const { delta, made } = reduce((baseCrc ^ target) >>> 0, 0n);
  if (delta !== 0) throw new Error('no collision with this slot; make it longer');
  const forged = Buffer.from(bytes);
  flips.forEach((flip, id) => {
    if ((made >> BigInt(id)) & 1n) forged[flip.offset]! ^= flip.mask;
  });
  return forged.toString('utf8');
}
