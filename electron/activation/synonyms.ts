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
  'poster flyer banner illustration artwork',
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
  'translate translation translating localize localise localization',
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

/** How much a synonym counts against the word the message used. */
export const SYNONYM_WEIGHT = 0.6;

/** Stem (or stems of a two-word phrase joined by a space) → stems it also stands for. */
const MAP = new Map<string, string[]>();
for (const g of GROUPS) {
  const members = [...new Set(g.split(/\s+/).map((m) => words(m.replace(/_/g, ' ')).map(stem).join(' ')))];
  for (const m of members) {
    const others = MAP.get(m) ?? [];
    for (const o of members) if (o !== m && !others.includes(o)) others.push(o);
    MAP.set(m, others);
  }
}

/**
 * The stems a message also stands for: of each of its stems and each adjacent pair (so "word
 * document" reaches docx, "all hands" announcements), leaving out `own` (the message's content
 * stems). Multi-word synonyms expand to each of their words.
 */
export function expandSynonyms(stems: readonly string[], own: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const push = (s: string) => {
    for (const part of s.split(' '))
      if (!own.has(part) && !STOPWORDS.has(part) && !out.includes(part)) out.push(part);
  };
  for (let i = 0; i < stems.length; i++) {
    for (const x of MAP.get(stems[i]!) ?? []) push(x);
    if (i + 1 < stems.length) for (const x of MAP.get(`${stems[i]} ${stems[i + 1]}`) ?? []) push(x);
  }
  return out;
}
