// run_python in the chat, in Chromium with the loopback provider: a CSV dropped into the chat's
// Files panel; the model's first run asks with the approval card showing the code; allowed for the
// chat, the run reads the CSV with the standard library and draws a bar chart as a PNG (zlib and
// struct, no matplotlib in Pyodide) and a Vega-Lite spec; the step's chips open the PNG in the
// canvas and the spec as an interactive chart. Screenshots at 1440×900, light and dark.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect as pw } from '@playwright/test';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../electron/test-support/index.js';
import { connectProvider, openChatFiles } from './browser.js';
import { describeWeb, shotSchemes } from './web-suite.js';

const CHART = `import csv, struct, zlib
rows = list(csv.DictReader(open("sales.csv")))
values = [float(r["amount"]) for r in rows]
W, H, PAD = 480, 300, 20
img = [[(255, 255, 255)] * W for _ in range(H)]
colors = [(37, 99, 235), (22, 163, 74), (234, 88, 12), (147, 51, 234)]
bar = (W - 2 * PAD) // len(values)
top = max(values)
for i, v in enumerate(values):
    h = int((H - 2 * PAD) * v / top)
    for y in range(H - PAD - h, H - PAD):
        for x in range(PAD + i * bar + 6, PAD + (i + 1) * bar - 6):
            img[y][x] = colors[i % len(colors)]
for x in range(PAD, W - PAD):
    img[H - PAD][x] = (60, 60, 60)
raw = b"".join(b"\\x00" + bytes(c for px in row for c in px) for row in img)
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
png = b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
open("chart.png", "wb").write(png)
import json
spec = {"$schema": "https://vega.github.io/schema/vega-lite/v6.json", "description": "Sales by region",
        "data": {"values": [{"region": r["region"], "amount": float(r["amount"])} for r in rows]},
        "mark": {"type": "bar", "tooltip": True},
        "encoding": {"x": {"field": "region", "type": "nominal"}, "y": {"field": "amount", "type": "quantitative"}}}
json.dump(spec, open("sales.vl.json", "w"))
print("bars", len(values), "max", top)
`;

const SCRIPT = [
  { tool_calls: [{ name: 'run_python', arguments: { code: CHART } }] },
  { text: 'The chart is in chart.png.', expect: { tool_result_contains: 'bars 4 max 45.0' } },
  {
    tool_calls: [
      {
        name: 'run_python',
        arguments: {
          code: 'import urllib.request\ntry:\n    urllib.request.urlopen("https://api.example.com/v1")\nexcept Exception as e:\n    print("refused:", e)\n',
        },
      },
    ],
  },
  { text: 'The API was refused.', expect: { tool_result_contains: 'refused:' } },
];

describeWeb(
  'run_python in the chat (Chromium)',
  { id: 'e2e/run-python', script: SCRIPT, page: { timeoutMs: 30_000 } },
  (web) => {
    it('asks with the code, runs it, and opens the chart it saved in the canvas', async () => {
      await connectProvider(web.page, web.provider.url, 'sk-e2e-python');
      await web.page.keyboard.press('Control+1');
      const composer = web.page.getByRole('textbox', { name: 'Message' });
      await composer.fill('Chart the sales by region');
      // The chat exists once its first message is stored; the CSV then goes in through the panel.
      await composer.press('Enter');
      const card = web.page.locator('.approval');
      await pw(card).toBeVisible({ timeout: 60_000 });
      await pw(card.locator('.approval__code')).toContainText(
        'rows = list(csv.DictReader(open("sales.csv")))',
      );
      await pw(card.getByText('Run Python: allow run_python?')).toBeVisible();

      // The file the code reads is dropped in (the panel's file input) while the card waits.
      await web.page.getByLabel('Add files to this chat').setInputFiles({
        name: 'sales.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('region,amount\nnorth,10\nsouth,20\neast,30\nwest,45\n'),
      });
      await pw(web.page.getByRole('button', { name: /Files · 1 ·/ })).toBeVisible();
      await card.getByRole('button', { name: 'Allow in this chat' }).click();

      await pw(web.page.getByText('The chart is in chart.png.')).toBeVisible({ timeout: 120_000 });
      await pw(web.page.getByText('Ran Python · 2 files written')).toBeVisible();
      const chip = web.page.getByRole('button', { name: /chart\.png/ }).first();
      await chip.click();
      const canvasImg = web.page.locator('.canvas img');
      await pw(canvasImg).toBeVisible({ timeout: 30_000 });
      const size = await canvasImg.evaluate((img: HTMLImageElement) => [img.naturalWidth, img.naturalHeight]);
      expect(size).toEqual([480, 300]);

      // The Files panel lists both, reachable by keyboard.
      const toggle = web.page.getByRole('button', { name: /Files · 3 ·/ });
      // Open since the CSV was added; Enter folds it and opens it again.
      await pw(toggle).toHaveAttribute('aria-expanded', 'true');
      await toggle.focus();
      await web.page.keyboard.press('Enter');
      await pw(toggle).toHaveAttribute('aria-expanded', 'false');
      await web.page.keyboard.press('Enter');
      await pw(toggle).toHaveAttribute('aria-expanded', 'true');
      await pw(web.page.getByRole('button', { name: 'Delete chart.png' })).toBeVisible();
      await pw(web.page.getByRole('button', { name: 'Download sales.csv' })).toBeVisible();

      await shotSchemes(web.page, 'run-python-chart');

      // The Vega-Lite file opens as an interactive chart (vega-embed, loaded only now).
      await web.page
        .getByRole('button', { name: /sales\.vl\.json/ })
        .first()
        .click();
      const chart = web.page.locator('.canvas__chart svg');
      await pw(chart).toBeVisible({ timeout: 30_000 });
      await pw(
        web.page.locator('.canvas__chart path[aria-roledescription="bar"], .canvas__chart .mark-rect path'),
      ).toHaveCount(4);
      await shotSchemes(web.page, 'run-python-vega');
      expect(web.problems).toEqual([]);
    }, 240_000);

    it('opens a Parquet file dropped into the chat as a table', async () => {
      // Written by pandas with pyarrow (Snappy): renderer/features/canvas/fixtures/sales.parquet.
      await openChatFiles(web.page);
      await web.page.getByLabel('Add files to this chat').setInputFiles({
        name: 'sales.parquet',
        mimeType: 'application/octet-stream',
        buffer: readFileSync(join(PROJECT_ROOT, 'renderer/features/canvas/fixtures/sales.parquet')),
      });
      await web.page.getByRole('button', { name: 'sales.parquet', exact: true }).click();
      const table = web.page.locator('.canvas .canvas__table table');
      await pw(table.locator('th')).toHaveText(['region', 'amount', 'orders', 'day', 'note'], {
        timeout: 30_000,
      });
      await pw(table.locator('tbody tr').first().locator('td').first()).toHaveText('north');
      await pw(web.page.locator('.canvas')).toContainText('3 rows · 5 columns');
      await shotSchemes(web.page, 'run-python-parquet');
      expect(web.problems).toEqual([]);
    }, 120_000);

    it('chooses the chat’s Python and the hosts its code may reach, by keyboard, kept on reload', async () => {
      await openChatFiles(web.page);
      const runtime = web.page.getByRole('combobox', { name: 'Python runtime for this chat' });
      await pw(runtime).toBeVisible();
      await runtime.selectOption('pyodide');
      const network = web.page.getByRole('form', { name: 'Python network for this chat' });
      await pw(network).toContainText('Network: none');
      const host = network.getByRole('textbox', { name: "Allow a host for this chat's Python" });
      // A URL is refused with the reason; nothing is kept.
      await host.fill('https://api.example.com/v1');
      await host.press('Enter');
      await pw(network.getByRole('alert')).toContainText('not a URL');
      await host.fill('api.example.com');
      await host.press('Enter');
      await pw(network.getByRole('button', { name: 'Stop allowing api.example.com' })).toBeVisible();
      await pw(host).toHaveValue('');
      // At 1024 with the canvas open the sidebar folds to its rail so the chat keeps its room; the
      // user can unfold it, and at 1440 it is unfolded again.
      await web.page.setViewportSize({ width: 1024, height: 700 });
      const nav = web.page.getByRole('navigation', { name: 'Main' });
      await pw(nav.getByRole('button', { name: 'Expand the sidebar' })).toBeVisible();
      expect(await web.page.locator('.canvas').count()).toBe(1);
      await shotSchemes(web.page, 'run-python-network-1024');
      await nav.getByRole('button', { name: 'Expand the sidebar' }).click();
      await pw(nav.getByRole('button', { name: 'Collapse the sidebar' })).toBeVisible();
      await web.page.setViewportSize({ width: 1440, height: 900 });
      await pw(nav.getByRole('button', { name: 'Collapse the sidebar' })).toBeVisible();

      await web.page.reload();
      // Closed after a reload, the bar says what is in effect; its controls are inside.
      await pw(web.page.getByTestId('chat-files-summary')).toHaveText(
        'Python: Pyodide · Network: api.example.com · Folders: none',
        { timeout: 30_000 },
      );
      await openChatFiles(web.page);
      const again = web.page.getByRole('form', { name: 'Python network for this chat' });
      await pw(again.getByRole('button', { name: 'Stop allowing api.example.com' })).toBeVisible({
        timeout: 30_000,
      });
      await pw(web.page.getByRole('combobox', { name: 'Python runtime for this chat' })).toHaveValue(
        'pyodide',
      );
      await again.getByRole('button', { name: 'Stop allowing api.example.com' }).click();
      await pw(again).toContainText('Network: none');
      expect(web.problems).toEqual([]);
    }, 120_000);

    it('asks apart from the run to allow a host the code was refused, and the Files bar shows it', async () => {
      const composer = web.page.getByRole('textbox', { name: 'Message' });
      await composer.fill('Fetch the API');
      await composer.press('Enter');
      await pw(web.page.getByText('The API was refused.')).toBeVisible({ timeout: 120_000 });
      const ask = web.page.getByRole('region', { name: "Network for this chat's Python" });
      await pw(ask).toContainText("The run tried to reach api.example.com; this chat's Python may not.");
      await shotSchemes(web.page, 'run-python-network-ask');
      await ask.getByRole('button', { name: 'Allow api.example.com for this chat' }).click();
      await pw(ask.getByRole('status')).toContainText('api.example.com is allowed for this chat');
      await openChatFiles(web.page);
      const network = web.page.getByRole('form', { name: 'Python network for this chat' });
      await pw(network.getByRole('button', { name: 'Stop allowing api.example.com' })).toBeVisible();
      await network.getByRole('button', { name: 'Stop allowing api.example.com' }).click();
      await pw(network).toContainText('Network: none');
      expect(web.problems).toEqual([]);
    }, 180_000);
  },
);
