import { STOPWORDS, stem, words } from './text.js';

// Groups of words people use for the same thing when asking for a skill: file types and the
// products that make them, abbreviations, British spellings, and a few loanwords. Every word of a
// group stands for the others at a lower weight (see SYNONYM_WEIGHT). Small on purpose: each
// entry is a common way of naming something a skill catalog names differently.
const GROUPS: string[] = [
  // Documents and file types
  'pptx ppt powerpoint slides slide slideshow presentation presentations deck keynote diapositivas folien praesentation prasentation presentacion',
  'xlsx xls xlsm excel spreadsheet spreadsheets workbook worksheet sheets planilha tabelle hoja',
  'docx msword word_document word_doc word_file wordprocessing',
  'pdf pdfs acrobat',
  'csv tsv tabular',
  'markdown md',
  'doc docs document documents documentation writeup readme dokument documento',
  'email emails mail e_mail correo',
  'png jpg jpeg image images picture photo',
  'gif gifs animated_image',
  'svg scalable_vector',
  // Design
  'color colors colour colours palette palettes hue hues swatch swatches',
  'typography typeface typefaces font fonts lettering',
  'theme themes styling stylesheet',
  'brand branding logo visual_identity',
  'poster flyer banner illustration artwork album_cover cover_art affiche',
  'draw drawing sketch illustrate',
  'encrypt encryption decrypt password_protect',
  'merge combine concatenate join',
  'art generative algorithmic creative_coding p5 p5js',
  'animation animated animate motion',
  'ui frontend front_end gui webpage website landing_page',
  'ux usability',
  'chart charts graph graphs plot plots visualization visualisation visualize visualise dataviz',
  // Writing
  'spec specs specification rfc design_doc technical_design',
  'proposal pitch',
  'announcement announcements newsletter all_hands internal_comms memo company_update',
  'status_report status_update weekly_update progress_report',
  'summarize summarise summary summarization tldr recap digest condense',
  // Not localize/localization: they stem to "local", and "my local web app" is not a translation.
  'translate translation translating i18n l10n',
  'proofread proofreading grammar spellcheck',
  // Engineering
  'claude anthropic opus sonnet haiku',
  'sdk client_library',
  'llm llms language_model',
  'test tests testing qa e2e end_to_end',
  'playwright puppeteer selenium headless_browser',
  'screenshot screenshots screen_capture',
  'mcp model_context_protocol',
  'js javascript nodejs',
  'ts typescript',
  'py python',
  'db database databases',
  'k8s kubernetes',
  'repo repository repositories',
  'pr pull_request',
  'ci continuous_integration',
  'auth authentication login oauth sso',
  'i18n internationalization internationalisation',
  'api apis endpoint endpoints',
  'regex regexp regular_expression',
  'cli command_line terminal shell',
  'react jsx tsx',
  'css tailwind stylesheet',
  'bug bugs defect',
  'slack slackbot',
  'ocr scanned text_recognition',
];

// Agent nouns and their verbs, which the stemmer keeps apart ("skill-creator" for "create a
// skill"): nearly the same word, so they count almost fully.
const FORMS: string[] = [
  'create creator creation',
  'build builder',
  'generate generator generation',
  'test tester',
  'write writer writing',
  'convert converter conversion',
  'format formatter formatting',
  'check checker',
  'review reviewer',
  'analyze analyse analyzer analyser analysis',
  'extract extractor extraction',
  'validate validator validation',
  'design designer',
  'plan planner planning',
  'edit editor editing',
  'manage manager management',
  'parse parser parsing',
  'scan scanner scanning',
  'track tracker tracking',
  'translate translator',
  'summarize summarise summarizer summariser',
  'optimize optimise optimizer optimiser optimization',
  'schedule scheduler scheduling',
  'compose composer composition',
  'render renderer rendering',
  'author authoring coauthor coauthoring co_author',
];

/** How much a synonym counts against the word the message used. */
export const SYNONYM_WEIGHT = 0.6;
/** How much another form of the same word counts. */
export const FORM_WEIGHT = 0.9;

/** Stem (or stems of a two-word phrase joined by a space) → single stems it also stands for. */
const MAP = new Map<string, Array<{ stem: string; weight: number }>>();
for (const [groups, weight] of [
  [GROUPS, SYNONYM_WEIGHT],
  [FORMS, FORM_WEIGHT],
] as const) {
  for (const g of groups) {
    const members = [...new Set(g.split(/\s+/).map((m) => words(m.replace(/_/g, ' ')).map(stem).join(' ')))];
    for (const m of members) {
      const others = MAP.get(m) ?? [];
      // A phrase is only looked for; what a word stands for is single words (the parts of
      // "word file" alone, "word" and "file", say little).
      for (const o of members) {
        if (o !== m && !o.includes(' ') && !others.some((x) => x.stem === o))
          others.push({ stem: o, weight });
      }
      MAP.set(m, others);
    }
  }
}

/**
 * The stems a message also stands for, with their weights: of each of its stems and each adjacent
 * pair (so "word document" reaches docx, "all hands" announcements), leaving out `own` (the
 * message's content stems) and stopwords. `weightOf` gives the weight of a message stem (a
 * synonym of a generic word counts as little as the word).
 */
export function expandSynonyms(
  stems: readonly string[],
  own: ReadonlySet<string>,
  weightOf: (stem: string) => number = () => 1,
): Array<{ stem: string; weight: number; from: string }> {
  const out = new Map<string, { stem: string; weight: number; from: string }>();
  const push = (xs: Array<{ stem: string; weight: number }> | undefined, w: number, from: string) => {
    for (const x of xs ?? []) {
      if (own.has(x.stem) || STOPWORDS.has(x.stem)) continue;
      const had = out.get(x.stem);
      if (!had || had.weight < x.weight * w) out.set(x.stem, { stem: x.stem, weight: x.weight * w, from });
    }
  };
  for (let i = 0; i < stems.length; i++) {
    push(MAP.get(stems[i]!), weightOf(stems[i]!), stems[i]!);
    const pair = `${stems[i]} ${stems[i + 1]}`;
    if (i + 1 < stems.length) push(MAP.get(pair), 1, pair);
  }
  return [...out.values()];
}
