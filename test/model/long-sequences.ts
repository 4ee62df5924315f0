import fc from 'fast-check';

/**
 * Command sequences of at least `min` commands. `fc.commands` draws lengths from 0 to its maximum, so runs of
 * "up to 50 steps" run about 25 each. Generation draws again until a sequence is long enough; shrinking is
 * fc.commands' own, so a failure still shrinks to its shortest sequence.
 */
export class LongSequences<C> extends fc.Arbitrary<Iterable<C>> {
  constructor(
    private readonly sequences: fc.Arbitrary<Iterable<C>>,
    private readonly min: number,
  ) {
    super();
  }

  generate(random: fc.Random, biasFactor: number | undefined): fc.Value<Iterable<C>> {
    for (;;) {
      const drawn = this.sequences.generate(random, biasFactor);
      if ([...drawn.value_].length >= this.min) return drawn;
    }
  }

  canShrinkWithoutContext(value: unknown): value is Iterable<C> {
    return this.sequences.canShrinkWithoutContext(value);
  }

  shrink(value: Iterable<C>, context: unknown): fc.Stream<fc.Value<Iterable<C>>> {
    return this.sequences.shrink(value, context);
  }
}
