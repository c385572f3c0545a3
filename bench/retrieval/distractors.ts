// Distractor skills for the retrieval harness: realistic, specific skill descriptions built from
// the vocabulary real catalogs share (file formats, office documents, design, writing, APIs,
// testing), so a target must win against skills that use its words for a narrower job.
import type { SkillPackage } from '../../electron/skills/package-schema.js';
import { rng } from '../corpus.js';

interface Topic {
  /** What the skill works on. */
  object: string;
  formats: string[];
  tools: string[];
  details: string[];
}

const TOPICS: Topic[] = [
  {
    object: 'invoices',
    formats: ['PDF', 'CSV'],
    tools: ['pdfplumber', 'pandas'],
    details: ['line items', 'tax totals', 'vendor names', 'due dates'],
  },
  {
    object: 'receipts',
    formats: ['PDF', 'PNG'],
    tools: ['tesseract', 'OpenCV'],
    details: ['merchant', 'amounts', 'currency', 'scanned images'],
  },
  {
    object: 'contracts',
    formats: ['Word document', 'PDF'],
    tools: ['python-docx', 'pypdf'],
    details: ['clauses', 'obligations', 'renewal dates', 'signatures'],
  },
  {
    object: 'meeting notes',
    formats: ['Markdown', 'Word document'],
    tools: ['pandoc'],
    details: ['action items', 'decisions', 'owners', 'attendees'],
  },
  {
    object: 'sales pipeline reports',
    formats: ['Excel workbook', 'CSV'],
    tools: ['openpyxl', 'pandas'],
    details: ['deal stages', 'forecasts', 'win rates', 'quota'],
  },
  {
    object: 'budget spreadsheets',
    formats: ['XLSX', 'Google Sheets'],
    tools: ['openpyxl'],
    details: ['cost centres', 'variance', 'monthly totals', 'formulas'],
  },
  {
    object: 'investor update decks',
    formats: ['PowerPoint', 'PDF'],
    tools: ['python-pptx'],
    details: ['metrics slides', 'runway', 'milestones', 'charts'],
  },
  {
    object: 'training slides',
    formats: ['PPTX', 'Google Slides'],
    tools: ['python-pptx'],
    details: ['learning objectives', 'quizzes', 'speaker notes', 'agenda'],
  },
  {
    object: 'conference talks',
    formats: ['Keynote', 'PPTX'],
    tools: ['reveal.js'],
    details: ['outline', 'timing', 'demo script', 'speaker notes'],
  },
  {
    object: 'research papers',
    formats: ['PDF', 'LaTeX'],
    tools: ['GROBID', 'bibtex'],
    details: ['citations', 'abstracts', 'figures', 'references'],
  },
  {
    object: 'resumes',
    formats: ['PDF', 'DOCX'],
    tools: ['spaCy'],
    details: ['skills', 'work history', 'education', 'contact details'],
  },
  {
    object: 'legal briefs',
    formats: ['Word document', 'PDF'],
    tools: ['python-docx'],
    details: ['case citations', 'headings', 'tables of authorities', 'footnotes'],
  },
  {
    object: 'product requirement documents',
    formats: ['Markdown', 'Confluence page'],
    tools: ['Confluence API'],
    details: ['user stories', 'acceptance criteria', 'scope', 'open questions'],
  },
  {
    object: 'API reference docs',
    formats: ['OpenAPI', 'Markdown'],
    tools: ['Redoc', 'Swagger'],
    details: ['endpoints', 'parameters', 'examples', 'error codes'],
  },
  {
    object: 'release notes',
    formats: ['Markdown', 'HTML'],
    tools: ['git log', 'GitHub API'],
    details: ['features', 'bug fixes', 'breaking changes', 'versions'],
  },
  {
    object: 'changelogs',
    formats: ['Markdown'],
    tools: ['conventional commits'],
    details: ['semver', 'sections', 'links', 'contributors'],
  },
  {
    object: 'customer support tickets',
    formats: ['CSV', 'JSON'],
    tools: ['Zendesk API'],
    details: ['priority', 'sentiment', 'categories', 'response templates'],
  },
  {
    object: 'marketing emails',
    formats: ['HTML email', 'MJML'],
    tools: ['Mailchimp'],
    details: ['subject lines', 'calls to action', 'A/B variants', 'unsubscribe links'],
  },
  {
    object: 'cold outreach emails',
    formats: ['plain text email'],
    tools: ['HubSpot'],
    details: ['personalisation', 'follow-ups', 'tone', 'sequences'],
  },
  {
    object: 'job descriptions',
    formats: ['Word document', 'HTML'],
    tools: ['Greenhouse'],
    details: ['responsibilities', 'requirements', 'inclusive language', 'salary ranges'],
  },
  {
    object: 'onboarding checklists',
    formats: ['Notion page', 'Markdown'],
    tools: ['Notion API'],
    details: ['accounts', 'first week tasks', 'buddies', 'equipment'],
  },
  {
    object: 'incident postmortems',
    formats: ['Markdown', 'Google Doc'],
    tools: ['PagerDuty'],
    details: ['timeline', 'root cause', 'impact', 'action items'],
  },
  {
    object: 'Kubernetes manifests',
    formats: ['YAML', 'Helm chart'],
    tools: ['kubectl', 'kubeval'],
    details: ['deployments', 'resource limits', 'probes', 'secrets'],
  },
  {
    object: 'Terraform modules',
    formats: ['HCL'],
    tools: ['terraform', 'tflint'],
    details: ['variables', 'state', 'providers', 'drift'],
  },
  {
    object: 'Dockerfiles',
    formats: ['Dockerfile'],
    tools: ['hadolint', 'docker buildx'],
    details: ['layers', 'base images', 'multi-stage builds', 'image size'],
  },
  {
    object: 'GitHub Actions workflows',
    formats: ['YAML'],
    tools: ['actionlint'],
    details: ['jobs', 'caching', 'matrix builds', 'secrets'],
  },
  {
    object: 'SQL queries',
    formats: ['SQL'],
    tools: ['PostgreSQL', 'sqlfluff'],
    details: ['joins', 'indexes', 'query plans', 'window functions'],
  },
  {
    object: 'database migrations',
    formats: ['SQL', 'Alembic scripts'],
    tools: ['Alembic', 'Flyway'],
    details: ['schema changes', 'rollbacks', 'data backfills', 'locks'],
  },
  {
    object: 'REST APIs',
    formats: ['OpenAPI', 'JSON'],
    tools: ['FastAPI', 'Express'],
    details: ['routes', 'validation', 'pagination', 'authentication'],
  },
  {
    object: 'GraphQL schemas',
    formats: ['GraphQL SDL'],
    tools: ['Apollo'],
    details: ['types', 'resolvers', 'mutations', 'deprecations'],
  },
  {
    object: 'React components',
    formats: ['TSX', 'JSX'],
    tools: ['React', 'Storybook'],
    details: ['props', 'hooks', 'accessibility', 'state'],
  },
  {
    object: 'landing pages',
    formats: ['HTML', 'CSS'],
    tools: ['Tailwind CSS', 'Next.js'],
    details: ['hero sections', 'pricing tables', 'call to action', 'responsive layout'],
  },
  {
    object: 'dashboards',
    formats: ['HTML', 'JSON'],
    tools: ['Grafana', 'Metabase'],
    details: ['panels', 'filters', 'KPIs', 'time ranges'],
  },
  {
    object: 'charts',
    formats: ['PNG', 'SVG'],
    tools: ['matplotlib', 'Vega-Lite'],
    details: ['axes', 'legends', 'colour scales', 'annotations'],
  },
  {
    object: 'data pipelines',
    formats: ['Parquet', 'CSV'],
    tools: ['Airflow', 'dbt'],
    details: ['schedules', 'retries', 'lineage', 'data quality checks'],
  },
  {
    object: 'machine learning experiments',
    formats: ['Jupyter notebook', 'YAML'],
    tools: ['MLflow', 'scikit-learn'],
    details: ['metrics', 'hyperparameters', 'baselines', 'reproducibility'],
  },
  {
    object: 'prompt templates',
    formats: ['Jinja', 'YAML'],
    tools: ['OpenAI API', 'LangChain'],
    details: ['variables', 'few-shot examples', 'system prompts', 'evaluations'],
  },
  {
    object: 'chatbot conversations',
    formats: ['JSON transcripts'],
    tools: ['Dialogflow', 'Rasa'],
    details: ['intents', 'fallbacks', 'handoff', 'tone'],
  },
  {
    object: 'LLM evaluation datasets',
    formats: ['JSONL'],
    tools: ['OpenAI evals', 'pytest'],
    details: ['graders', 'rubrics', 'golden answers', 'regressions'],
  },
  {
    object: 'unit tests',
    formats: ['Python', 'TypeScript'],
    tools: ['pytest', 'Jest', 'Vitest'],
    details: ['fixtures', 'mocks', 'coverage', 'edge cases'],
  },
  {
    object: 'end-to-end tests',
    formats: ['TypeScript'],
    tools: ['Cypress', 'Selenium'],
    details: ['login flows', 'selectors', 'flaky tests', 'CI runs'],
  },
  {
    object: 'mobile app screens',
    formats: ['Figma', 'PNG'],
    tools: ['Figma API', 'SwiftUI'],
    details: ['navigation', 'components', 'dark mode', 'spacing'],
  },
  {
    object: 'logos',
    formats: ['SVG', 'PNG'],
    tools: ['Inkscape', 'Figma'],
    details: ['wordmarks', 'icons', 'clear space', 'monochrome versions'],
  },
  {
    object: 'social media posts',
    formats: ['PNG', 'text'],
    tools: ['Canva', 'Buffer'],
    details: ['captions', 'hashtags', 'image sizes', 'posting schedule'],
  },
  {
    object: 'event flyers',
    formats: ['PDF', 'PNG'],
    tools: ['Canva', 'Affinity'],
    details: ['dates', 'venue', 'QR codes', 'print bleed'],
  },
  {
    object: 'book covers',
    formats: ['PDF', 'JPG'],
    tools: ['InDesign'],
    details: ['spine width', 'title typography', 'back cover copy', 'ISBN barcode'],
  },
  {
    object: 'photo collections',
    formats: ['JPG', 'HEIC'],
    tools: ['ImageMagick', 'exiftool'],
    details: ['resizing', 'metadata', 'duplicates', 'watermarks'],
  },
  {
    object: 'video subtitles',
    formats: ['SRT', 'VTT'],
    tools: ['ffmpeg', 'Whisper'],
    details: ['timing', 'line length', 'translations', 'speaker labels'],
  },
  {
    object: 'podcast episodes',
    formats: ['MP3', 'transcript'],
    tools: ['Whisper', 'Descript'],
    details: ['show notes', 'chapters', 'quotes', 'guest bios'],
  },
  {
    object: 'Slack channels',
    formats: ['Slack messages'],
    tools: ['Slack API'],
    details: ['threads', 'digests', 'mentions', 'reminders'],
  },
  {
    object: 'Jira tickets',
    formats: ['Jira issues'],
    tools: ['Jira API'],
    details: ['epics', 'story points', 'sprints', 'labels'],
  },
  {
    object: 'calendar invites',
    formats: ['ICS'],
    tools: ['Google Calendar API'],
    details: ['time zones', 'attendees', 'agendas', 'recurring events'],
  },
  {
    object: 'translation memories',
    formats: ['XLIFF', 'PO files'],
    tools: ['Crowdin'],
    details: ['glossaries', 'placeholders', 'plural forms', 'locales'],
  },
  {
    object: 'accessibility audits',
    formats: ['HTML', 'PDF'],
    tools: ['axe-core', 'Lighthouse'],
    details: ['contrast', 'alt text', 'keyboard navigation', 'ARIA roles'],
  },
  {
    object: 'security scans',
    formats: ['SARIF', 'JSON'],
    tools: ['Semgrep', 'Trivy'],
    details: ['vulnerabilities', 'severity', 'false positives', 'remediation'],
  },
  {
    object: 'log files',
    formats: ['JSON logs', 'plain text'],
    tools: ['jq', 'Loki'],
    details: ['errors', 'stack traces', 'request ids', 'latency'],
  },
  {
    object: 'shipping labels',
    formats: ['PDF', 'ZPL'],
    tools: ['EasyPost'],
    details: ['addresses', 'tracking numbers', 'carriers', 'customs forms'],
  },
  {
    object: 'medical records',
    formats: ['HL7', 'PDF'],
    tools: ['FHIR'],
    details: ['patient data', 'redaction', 'diagnoses', 'consent'],
  },
  {
    object: 'grant applications',
    formats: ['Word document', 'PDF'],
    tools: ['Zotero'],
    details: ['budgets', 'aims', 'impact statements', 'deadlines'],
  },
  {
    object: 'lesson plans',
    formats: ['Google Doc', 'PDF'],
    tools: ['Google Classroom'],
    details: ['objectives', 'activities', 'assessments', 'differentiation'],
  },
  {
    object: 'recipes',
    formats: ['Markdown', 'JSON'],
    tools: ['schema.org'],
    details: ['ingredients', 'servings', 'nutrition', 'steps'],
  },
  {
    object: 'real estate listings',
    formats: ['HTML', 'PDF'],
    tools: ['MLS feeds'],
    details: ['photos', 'floor plans', 'prices', 'neighbourhood'],
  },
  {
    object: 'font files',
    formats: ['TTF', 'WOFF2'],
    tools: ['fonttools'],
    details: ['subsetting', 'glyphs', 'kerning', 'licensing'],
  },
  {
    object: 'colour palettes',
    formats: ['JSON', 'ASE'],
    tools: ['chroma.js'],
    details: ['contrast ratios', 'tints', 'design tokens', 'dark mode'],
  },
  {
    object: 'design tokens',
    formats: ['JSON', 'CSS variables'],
    tools: ['Style Dictionary'],
    details: ['spacing', 'typography scale', 'colours', 'themes'],
  },
  {
    object: 'email newsletters',
    formats: ['HTML email', 'Markdown'],
    tools: ['Substack', 'Buttondown'],
    details: ['sections', 'links', 'sponsors', 'open rates'],
  },
  {
    object: 'sticker packs',
    formats: ['PNG', 'WebP'],
    tools: ['Pillow'],
    details: ['transparent backgrounds', 'outlines', 'sizes', 'animation'],
  },
  {
    object: 'browser extensions',
    formats: ['JavaScript', 'manifest.json'],
    tools: ['WebExtensions API'],
    details: ['permissions', 'content scripts', 'popups', 'storage'],
  },
  {
    object: 'CLI tools',
    formats: ['Python', 'Go'],
    tools: ['click', 'cobra'],
    details: ['flags', 'help text', 'exit codes', 'completions'],
  },
  {
    object: 'webhooks',
    formats: ['JSON'],
    tools: ['Stripe API', 'ngrok'],
    details: ['signatures', 'retries', 'idempotency', 'payloads'],
  },
  {
    object: 'OAuth integrations',
    formats: ['JSON'],
    tools: ['Auth0', 'OAuth 2.0'],
    details: ['scopes', 'refresh tokens', 'redirect URIs', 'consent screens'],
  },
  {
    object: 'chat widgets',
    formats: ['JavaScript', 'HTML'],
    tools: ['Intercom', 'Crisp'],
    details: ['greetings', 'office hours', 'routing', 'styling'],
  },
  {
    object: 'survey results',
    formats: ['CSV', 'Excel workbook'],
    tools: ['Typeform', 'pandas'],
    details: ['open-ended answers', 'NPS', 'segments', 'cross tabs'],
  },
  {
    object: 'financial statements',
    formats: ['PDF', 'XLSX'],
    tools: ['pandas'],
    details: ['balance sheets', 'cash flow', 'ratios', 'quarter over quarter'],
  },
  {
    object: 'timesheets',
    formats: ['CSV', 'XLSX'],
    tools: ['Harvest'],
    details: ['billable hours', 'overtime', 'projects', 'approvals'],
  },
  {
    object: 'interview transcripts',
    formats: ['DOCX', 'text'],
    tools: ['Otter', 'Whisper'],
    details: ['themes', 'quotes', 'speakers', 'insights'],
  },
  {
    object: 'architecture diagrams',
    formats: ['Mermaid', 'PNG'],
    tools: ['draw.io', 'PlantUML'],
    details: ['components', 'data flow', 'boundaries', 'legends'],
  },
  {
    object: 'game assets',
    formats: ['PNG', 'sprite sheets'],
    tools: ['Aseprite'],
    details: ['tiles', 'animations', 'palettes', 'hitboxes'],
  },
  {
    object: 'music playlists',
    formats: ['M3U', 'JSON'],
    tools: ['Spotify API'],
    details: ['moods', 'tempo', 'genres', 'transitions'],
  },
  {
    object: 'travel itineraries',
    formats: ['PDF', 'ICS'],
    tools: ['Google Maps API'],
    details: ['flights', 'hotels', 'daily plans', 'budgets'],
  },
];

const ACTIONS = [
  { verb: 'Extract', noun: 'extractor', gerund: 'extracting' },
  { verb: 'Generate', noun: 'generator', gerund: 'generating' },
  { verb: 'Convert', noun: 'converter', gerund: 'converting' },
  { verb: 'Validate', noun: 'validator', gerund: 'validating' },
  { verb: 'Summarize', noun: 'summarizer', gerund: 'summarizing' },
  { verb: 'Review', noun: 'reviewer', gerund: 'reviewing' },
  { verb: 'Draft', noun: 'drafter', gerund: 'drafting' },
  { verb: 'Format', noun: 'formatter', gerund: 'formatting' },
  { verb: 'Analyze', noun: 'analyzer', gerund: 'analyzing' },
  { verb: 'Clean up', noun: 'cleaner', gerund: 'cleaning up' },
  { verb: 'Merge', noun: 'merger', gerund: 'merging' },
  { verb: 'Translate', noun: 'translator', gerund: 'translating' },
  { verb: 'Audit', noun: 'auditor', gerund: 'auditing' },
  { verb: 'Redesign', noun: 'redesigner', gerund: 'redesigning' },
  { verb: 'Style', noun: 'styler', gerund: 'styling' },
  { verb: 'Compare', noun: 'differ', gerund: 'comparing' },
  { verb: 'Classify', noun: 'classifier', gerund: 'classifying' },
  { verb: 'Redact', noun: 'redactor', gerund: 'redacting' },
  { verb: 'Test', noun: 'tester', gerund: 'testing' },
  { verb: 'Document', noun: 'documenter', gerund: 'documenting' },
  { verb: 'Visualize', noun: 'visualizer', gerund: 'visualizing' },
  { verb: 'Migrate', noun: 'migrator', gerund: 'migrating' },
  { verb: 'Optimize', noun: 'optimizer', gerund: 'optimizing' },
  { verb: 'Annotate', noun: 'annotator', gerund: 'annotating' },
  { verb: 'Schedule', noun: 'scheduler', gerund: 'scheduling' },
  { verb: 'Monitor', noun: 'monitor', gerund: 'monitoring' },
  { verb: 'Debug', noun: 'debugger', gerund: 'debugging' },
  { verb: 'Rewrite', noun: 'rewriter', gerund: 'rewriting' },
];

const AUDIENCES = [
  'for legal teams',
  'for finance teams',
  'for small businesses',
  'for HR',
  'for engineering managers',
  'for marketing teams',
  'for researchers',
  'for teachers',
  'for startups',
  'for agencies',
  'for nonprofits',
  'for healthcare providers',
  'for e-commerce stores',
  'for Shopify merchants',
  'for Salesforce admins',
  'for open-source maintainers',
  'for data analysts',
  'for designers',
  'for sales reps',
  'for support teams',
  'for freelancers',
  'for students',
  'for product managers',
  'for recruiters',
  'for accountants',
];

const OPENERS = [
  (a: string, o: string, aud: string) => `${a} ${o} ${aud}.`,
  (a: string, o: string, aud: string) =>
    `Use this skill when the user wants to ${a.toLowerCase()} ${o} ${aud}.`,
  (a: string, o: string, aud: string) => `Toolkit to ${a.toLowerCase()} ${o} ${aud}.`,
  (a: string, o: string, aud: string) => `Guide for teams who need to ${a.toLowerCase()} ${o} ${aud}.`,
  (a: string, o: string, aud: string) =>
    `Helps ${aud.replace(/^for /, '')} ${a.toLowerCase()} ${o} quickly and consistently.`,
];

const pick = <T>(xs: readonly T[], r: () => number): T => xs[Math.floor(r() * xs.length)]!;
const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** `n` distractor packages, deterministic for a seed, names unique. */
export function distractorPackages(n: number, seed = 1): SkillPackage[] {
  const r = rng(seed);
  const out: SkillPackage[] = [];
  const used = new Set<string>();
  for (let i = 0; i < n; i++) {
    const t = pick(TOPICS, r);
    const a = pick(ACTIONS, r);
    const aud = pick(AUDIENCES, r);
    const f1 = pick(t.formats, r);
    const tool = pick(t.tools, r);
    const ds = [...t.details].sort(() => r() - 0.5).slice(0, 3);
    const opener = pick(OPENERS, r)(a.verb, t.object, aud);
    const description = `${opener} Handles ${ds[0]}, ${ds[1]} and ${ds[2]} in ${f1} files, using ${tool}. Use when the user mentions ${t.object}${r() < 0.5 ? ` or ${f1}` : ''} and asks for ${a.gerund} them.`;
    let name = `${slug(t.object)}-${a.noun}`;
    if (used.has(name)) name = `${name}-${slug(aud.replace(/^for /, ''))}`;
    if (used.has(name)) name = `${name}-${i}`;
    used.add(name);
    const body = `1. Read the ${f1} input and check it is complete.\n2. ${a.verb} the ${t.object}, paying attention to ${ds.join(', ')}.\n3. Use ${tool} where it helps; keep the original file untouched.\n4. Report what changed and anything that needs a human decision.`;
    out.push({
      name,
      description,
      version: '1.0.0',
      tags: [slug(t.object), a.noun, slug(f1)],
      trigger_phrases: r() < 0.3 ? [`${a.verb.toLowerCase()} ${t.object}`] : undefined,
      artifacts: [
        { kind: 'approach', name: 'Instructions', ordinal: 0, content: body },
        ...(r() < 0.4
          ? [
              {
                kind: 'resource' as const,
                name: `scripts/${slug(a.noun)}.py`,
                ordinal: 1,
                content: '# script',
                metadata: { path: `scripts/${slug(a.noun)}.py` },
              },
            ]
          : []),
      ],
    });
  }
  return out;
}
