/**
 * Stripe's form encoding read back into an object: `a[b][c]=v` nests, `a[0]=v` is an array element. Values
 * stay text, as Stripe receives them.
 */
export function decodeForm(form: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(form)) {
    const [head, ...rest] = key.split('[').map((part) => part.replace(/]$/, ''));
    const path = [head as string, ...rest];
    let node: Record<string | number, unknown> = root;
    path.forEach((segment, index) => {
      const slot = Array.isArray(node) ? Number(segment) : segment;
      if (index === path.length - 1) {
        node[slot] = value;
        return;
      }
      node[slot] ??= /^\d+$/.test(path[index + 1] as string) ? [] : {};
      node = node[slot] as Record<string | number, unknown>;
    });
  }
  return root;
}
