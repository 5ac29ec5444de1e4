// The designs an export is tried on: the examples and the design corpus (tests/designs/), less
// the corpus's designs dynalab refuses (exit 2 in its manifest), which export nothing.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export function designs(root) {
  const refused = new Set(
    JSON.parse(readFileSync(join(root, 'tests/designs/manifest.json'), 'utf8')).designs.filter((d) => d.exit === 2).map((d) => d.file),
  );
  return [
    ...readdirSync(join(root, 'examples')).filter((f) => f.endsWith('.workbook.json') || f.endsWith('.design.md')).map((f) => join(root, 'examples', f)),
    ...readdirSync(join(root, 'tests/designs'))
      .map((f) => join(root, 'tests/designs', f))
      .filter((f) => statSync(f).isFile() && !/README\.md$|manifest\.json$/.test(f) && !refused.has(f.split('/').pop())),
  ];
}
