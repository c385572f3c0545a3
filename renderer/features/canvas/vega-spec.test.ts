// A chart file from a Python run is cleaned before Vega sees it: nothing that loads or navigates
// survives, and a file is taken as a chart by its name or its Vega schema.
import { describe, expect, it } from 'vitest';
import { docFromText } from './canvas-docs.js';
import { isVegaSpec, safeVegaSpec } from './vega-spec.js';

describe('Vega-Lite chart files', () => {
  it('takes .vl.json files and specs with a Vega schema as charts, other JSON as code', () => {
    const spec = JSON.stringify({ $schema: 'https://vega.github.io/schema/vega-lite/v6.json', mark: 'bar' });
    expect(isVegaSpec('chart.vl.json', '{}')).toBe(true);
    expect(isVegaSpec('chart.json', spec)).toBe(true);
    expect(isVegaSpec('data.json', '{"a": 1}')).toBe(false);
    expect(docFromText('chart.json', spec, 's').content.kind).toBe('chart');
    expect(docFromText('data.json', '{"a": 1}', 's').content).toMatchObject({ kind: 'code', lang: 'json' });
  });

  it('removes every url, href and loader, anywhere in the spec', () => {
    const r = safeVegaSpec(
      JSON.stringify({
        data: { url: 'https://evil.example/x.csv' },
        mark: { type: 'image', href: 'javascript:alert(1)' },
        encoding: { url: { field: 'u' }, x: { field: 'a' } },
        layer: [{ data: { url: 'file:///etc/passwd' } }],
        usermeta: { embedOptions: { loader: {} } },
      }),
    );
    expect(r.removed).toBe(5);
    expect(JSON.stringify(r.spec)).not.toMatch(/url|href|evil|passwd|usermeta/);
    expect(r.mode).toBe('vega-lite');
    expect(() => safeVegaSpec('[1]')).toThrow(/not a Vega-Lite spec/);
    expect(() => safeVegaSpec('{')).toThrow(/not valid JSON/);
  });
});
