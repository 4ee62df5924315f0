/**
 * A JSON scanner that finds where values are instead of building them, so a member of an object can be
 * taken out byte for byte. The verify endpoint needs this: the signature covers the delivery body exactly
 * as sent, and JSON.parse + JSON.stringify would rewrite `1.0`, integers beyond 2^53, `\u00e9` escapes,
 * whitespace and duplicate keys.
 */

export class RawJsonError extends Error {
  override name = 'RawJsonError';
}

const maxDepth = 256;
const numberPattern = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const literals = ['true', 'false', 'null'];

class Scanner {
  position = 0;

  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new RawJsonError(`${what} at position ${this.position}`);
  }

  skipWhitespace(): void {
    while (this.position < this.text.length && ' \t\n\r'.includes(this.text.charAt(this.position)))
      this.position += 1;
  }

  expect(char: string): void {
    if (this.text.charAt(this.position) !== char) this.fail(`Expected '${char}'`);
    this.position += 1;
  }

  /** Skips one value starting at the current position (no leading whitespace). */
  value(depth: number): void {
    if (depth > maxDepth) this.fail('Nesting too deep');
    const char = this.text.charAt(this.position);
    if (char === '{') return this.object(depth, () => {});
    if (char === '[') return this.array(depth);
    if (char === '"') return this.string();
    if (char === '-' || (char >= '0' && char <= '9')) return this.number();
    const literal = literals.find((word) => this.text.startsWith(word, this.position));
    if (!literal) this.fail('Unexpected character');
    this.position += literal.length;
  }

  string(): void {
    this.expect('"');
    for (;;) {
      const code = this.text.charCodeAt(this.position);
      if (Number.isNaN(code)) this.fail('Unterminated string');
      if (code < 0x20) this.fail('Control character in string');
      this.position += 1;
      if (code === 0x22) return;
      if (code !== 0x5c) continue;
      const escape = this.text.charAt(this.position);
      if (escape === 'u') {
        if (!/^[0-9a-fA-F]{4}$/.test(this.text.slice(this.position + 1, this.position + 5)))
          this.fail('Bad \\u escape');
        this.position += 5;
      } else if ('"\\/bfnrt'.includes(escape) && escape !== '') {
        this.position += 1;
      } else {
        this.fail('Bad escape');
      }
    }
  }

  number(): void {
    numberPattern.lastIndex = this.position;
    if (!numberPattern.test(this.text)) this.fail('Bad number');
    this.position = numberPattern.lastIndex;
  }

  array(depth: number): void {
    this.sequence('[', ']', () => this.value(depth + 1));
  }

  /** Skips an object, telling `onMember` the decoded key and raw span of each member's value. */
  object(depth: number, onMember: (key: string, start: number, end: number) => void): void {
    this.sequence('{', '}', () => {
      const keyStart = this.position;
      this.string();
      const key = JSON.parse(this.text.slice(keyStart, this.position)) as string;
      this.skipWhitespace();
      this.expect(':');
      this.skipWhitespace();
      const valueStart = this.position;
      this.value(depth + 1);
      onMember(key, valueStart, this.position);
    });
  }

  /** `open`, then comma-separated items (each skipped by `item`) up to `close`. */
  private sequence(open: string, close: string, item: () => void): void {
    this.expect(open);
    this.skipWhitespace();
    if (this.text.charAt(this.position) === close) {
      this.position += 1;
      return;
    }
    for (;;) {
      this.skipWhitespace();
      item();
      this.skipWhitespace();
      if (this.text.charAt(this.position) === close) {
        this.position += 1;
        return;
      }
      this.expect(',');
    }
  }
}

/**
 * The exact text of member `name` of the JSON object `text` (the last one, as JSON.parse would take, when
 * the key repeats), or undefined when the object has no such member. Throws RawJsonError when `text` is
 * not one well-formed JSON object.
 */
export function rawMemberValue(text: string, name: string): string | undefined {
  const scanner = new Scanner(text);
  let span: [number, number] | undefined;
  scanner.skipWhitespace();
  if (text.charAt(scanner.position) !== '{') scanner.fail('Expected a JSON object');
  scanner.object(0, (key, start, end) => {
    if (key === name) span = [start, end];
  });
  scanner.skipWhitespace();
  if (scanner.position !== text.length) scanner.fail('Unexpected text after the JSON value');
  return span && text.slice(span[0], span[1]);
}
