// Seventeen realistic skills in the style of the public Agent Skills (document formats, design,
// writing, developer tooling): the labelled targets of the retrieval harness. Descriptions and
// bodies are written for this harness; they are not copies of any published skill.
import type { SkillPackage } from '../../electron/skills/package-schema.js';

interface Seed {
  name: string;
  description: string;
  body: string;
  files?: string[];
}

const SEEDS: Seed[] = [
  {
    name: 'pptx',
    description:
      'Use whenever a .pptx file is involved: building slide decks or pitch decks, reading or pulling the text out of an existing presentation, editing slides, layouts, speaker notes and comments, or merging and splitting decks. Trigger on mentions of deck, slides or presentation.',
    body: 'Reading a deck: convert it to markdown with markitdown, or unpack the XML for notes and comments. Creating a deck: start from a layout template, keep one idea per slide, render thumbnails to check the result visually. Editing: unzip, change ppt/slides/slideN.xml, repack.',
    files: ['scripts/thumbnail.py', 'scripts/inventory.py', 'ooxml/unpack.py', 'html2pptx.md'],
  },
  {
    name: 'docx',
    description:
      'Create, read, edit and review Word documents (.docx). Covers professional reports and memos with headings, tables of contents, page numbers and letterheads, tracked changes and comments, find-and-replace, images, and converting content into a polished Word file.',
    body: 'For reading, convert with pandoc to markdown. For new documents use the docx library in JavaScript. For redlining, work on the unpacked XML so tracked changes (w:ins, w:del) are preserved. Validate the result opens in Word and LibreOffice.',
    files: ['scripts/document.py', 'ooxml/pack.py', 'docx-js.md', 'ooxml.md'],
  },
  {
    name: 'xlsx',
    description:
      'Use when a spreadsheet is the main input or output: open, clean or fix .xlsx, .xlsm, .csv or .tsv files, add columns, formulas, formatting and charts, build a financial model, or convert between tabular formats.',
    body: 'Load with pandas for analysis and openpyxl to keep formulas and styles. Never hardcode computed values: write Excel formulas so the workbook stays live. Recalculate with LibreOffice and check there are no #REF! or #DIV/0! errors. Follow colour conventions for inputs and formulas in financial models.',
    files: ['recalc.py'],
  },
  {
    name: 'pdf',
    description:
      'Anything with PDF files: extract text and tables, merge or split documents, rotate pages, add watermarks, fill PDF forms, encrypt or decrypt, pull out images, create new PDFs, and OCR scanned pages so they become searchable.',
    body: 'Use pypdf for merging, splitting and rotating; pdfplumber for text and tables with layout; reportlab to generate new PDFs; pytesseract with pdf2image for scanned documents. For forms, inspect fillable fields first, then fill and flatten.',
    files: ['forms.md', 'reference.md', 'scripts/fill_fillable_fields.py', 'scripts/check_bounding_boxes.py'],
  },
  {
    name: 'claude-api',
    description:
      'Reference for building with the Claude API and the Anthropic SDKs (Python, TypeScript): model ids and pricing, messages, streaming, tool use, prompt caching, token counting, batches, extended thinking and migrating between model versions.',
    body: 'Install the anthropic package. Create a client and call messages.create with a model, max_tokens and messages. For streaming use client.messages.stream and iterate text deltas. Define tools with a JSON schema input; handle tool_use blocks and reply with tool_result. Cache long system prompts with cache_control.',
    files: ['python/streaming.md', 'typescript/tool-use.md', 'models.md', 'pricing.md'],
  },
  {
    name: 'mcp-builder',
    description:
      'Guide for building high-quality MCP (Model Context Protocol) servers that let a model use external services through well-designed tools, in Python with FastMCP or in Node/TypeScript with the MCP SDK.',
    body: 'Study the API you wrap, plan tools around user workflows rather than endpoints, return concise and actionable results, paginate, and write helpful error messages. Then implement, test with the inspector, and write evaluation questions to check the server works with a model.',
    files: ['reference/python_mcp_server.md', 'reference/node_mcp_server.md', 'reference/evaluation.md'],
  },
  {
    name: 'webapp-testing',
    description:
      'Toolkit for interacting with and testing local web applications using Playwright: verify frontend behaviour, debug the UI, capture browser screenshots and read the browser console logs.',
    body: 'Start the dev server with the helper script, then write a Playwright script in Python that opens the page in headless Chromium, waits for network idle, inspects the rendered DOM, clicks and fills forms, and takes screenshots.',
    files: ['scripts/with_server.py', 'examples/element_discovery.py', 'examples/console_logging.py'],
  },
  {
    name: 'frontend-design',
    description:
      'Guidance for distinctive, intentional visual design when building a new user interface or reshaping an existing one: aesthetic direction, typography, colour, layout and motion that do not look like generic templates.',
    body: 'Pick a clear aesthetic direction before coding. Choose characterful fonts and pair them deliberately, commit to a palette with a dominant colour and sharp accents, use asymmetric layouts, meaningful animation and textured backgrounds. Avoid the default purple gradients and system fonts.',
  },
  {
    name: 'web-artifacts-builder',
    description:
      'Tools for building elaborate multi-component HTML artifacts with React, Tailwind CSS and shadcn/ui, bundled into a single file. For artifacts needing state management, routing or many components, not simple single-file pages.',
    body: 'Initialise the project with the init script (React, TypeScript, Vite, Tailwind, shadcn/ui preinstalled), develop the components, then bundle everything into one HTML file with the bundling script and share it.',
    files: ['scripts/init-artifact.sh', 'scripts/bundle-artifact.sh'],
  },
  {
    name: 'canvas-design',
    description:
      'Create original visual art as .png and .pdf files from a design philosophy: posters, prints, covers and other static pieces, composed with care for form, space and colour.',
    body: 'First write a short design philosophy (a named aesthetic movement), then express it on the canvas: strong composition, restrained text, refined typography from the bundled fonts, and many careful refinement passes.',
    files: ['canvas-fonts/'],
  },
  {
    name: 'algorithmic-art',
    description:
      'Create generative art with code using p5.js: seeded randomness, flow fields, particle systems and noise, with interactive parameters to explore variations. Original work, never copies of existing artists.',
    body: 'Write an algorithmic philosophy, then implement it as a p5.js sketch in a single HTML file with a seed control and parameter sliders. Use Perlin noise, flow fields and particles; keep the randomness seeded so every image can be reproduced.',
    files: ['templates/viewer.html', 'templates/generator_template.js'],
  },
  {
    name: 'brand-guidelines',
    description:
      "Apply the company's official brand colours and typography to any artifact that should carry its look and feel: style guides, visual formatting and design standards.",
    body: 'Headings use the brand display font, body text the brand serif. Main colours: dark, light, mid grey, with orange, blue and green accents for shapes. Apply colours to charts and slides consistently and keep sufficient contrast.',
  },
  {
    name: 'theme-factory',
    description:
      'Toolkit for styling artifacts with a theme: slides, documents, reports and HTML landing pages. Ten preset themes with coordinated colours and fonts, or a new theme generated on the fly.',
    body: 'Show the theme showcase, let the user choose a theme, then apply its colour palette and font pairing throughout the artifact. Each theme file lists hex colours for backgrounds, text and accents, and a header and body font.',
    files: ['theme-showcase.pdf', 'themes/ocean-depths.md', 'themes/sunset-boulevard.md'],
  },
  {
    name: 'internal-comms',
    description:
      'Write internal communications in the formats a company likes: status reports, leadership updates, 3P updates (progress, plans, problems), company newsletters, FAQs, incident reports and project updates.',
    body: 'Identify the type of communication, load the matching guideline file, and follow its structure: for 3P updates list progress, plans and problems in short bullets; for newsletters lead with the most important news; for incident reports state impact, timeline and follow-ups.',
    files: ['examples/3p-updates.md', 'examples/company-newsletter.md', 'examples/faq-answers.md'],
  },
  {
    name: 'doc-coauthoring',
    description:
      'A structured workflow for co-authoring documentation with the user: proposals, technical specs, design and decision docs. Gathers context, drafts section by section, and tests that the document works for its readers.',
    body: 'Stage one: context gathering with clarifying questions. Stage two: refine the structure and draft each section through iteration. Stage three: reader testing, where a fresh reader checks the document answers their questions.',
  },
  {
    name: 'skill-creator',
    description:
      'Create new skills, improve existing ones and measure how well they perform: write the SKILL.md, bundle scripts and references, run evals, benchmark with variance analysis and optimise the description so the skill triggers reliably.',
    body: 'Capture intent and examples of use, write the SKILL.md with a clear name and description, add scripts and references, then run the evals and the description optimiser. Package the skill folder when it passes.',
    files: ['scripts/init_skill.py', 'scripts/package_skill.py', 'scripts/run_eval.py'],
  },
  {
    name: 'slack-gif-creator',
    description:
      'Create animated GIFs optimised for Slack, with the size and frame constraints Slack needs, validation tools and animation ideas. Use for requests like "make me a GIF of X doing Y for Slack".',
    body: 'Emoji GIFs must be 128x128 and small; message GIFs up to 480 pixels. Build frames with PIL, keep the palette and frame count low, and validate the file size before sharing. Animation primitives: shake, bounce, spin, pulse, fade.',
    files: ['core/gif_builder.py', 'core/validators.py'],
  },
];

/** The seed skills as packages: description, approach (the body) and bundled file names. */
export function seedPackages(): SkillPackage[] {
  return SEEDS.map((s) => ({
    name: s.name,
    description: s.description,
    version: '1.0.0',
    artifacts: [
      { kind: 'approach' as const, name: 'Instructions', ordinal: 0, content: s.body },
      ...(s.files ?? []).map((f, i) => ({
        kind: 'resource' as const,
        name: f,
        ordinal: i + 1,
        content: `# ${f}`,
        metadata: { path: f },
      })),
    ],
  }));
}

/** Names of the seed skills. */
export const SEED_NAMES = SEEDS.map((s) => s.name);
