// User requests for the retrieval harness, each labelled with the skill that should fire and how
// it is phrased: `own_words` uses the skill's vocabulary; `paraphrase` says it in other words;
// `file_type`, `product`, `misspelling` and `loanword` are the other ways people name a task.
// Every third request is held out: it is reported separately and never used to tune.

/** How a request is phrased. */
export type RequestKind = 'own_words' | 'paraphrase' | 'file_type' | 'product' | 'misspelling' | 'loanword';

/** One labelled request. */
export interface LabelledRequest {
  text: string;
  target: string;
  kind: RequestKind;
  split: 'tune' | 'heldout';
}

const RAW: Array<[string, string, RequestKind]> = [
  // pptx
  ['extract all the text from this PowerPoint presentation', 'pptx', 'product'],
  ['make a 10 slide pitch deck for our seed round', 'pptx', 'own_words'],
  ['add speaker notes to every slide in quarterly.pptx', 'pptx', 'file_type'],
  ['turn these bullet points into a slideshow I can present on Monday', 'pptx', 'paraphrase'],
  ['can you read my powerpiont and tell me what is on slide 4', 'pptx', 'misspelling'],
  ['crea una presentación con diapositivas sobre el proyecto', 'pptx', 'loanword'],
  ['split this keynote-style deck into two smaller decks', 'pptx', 'own_words'],
  // docx
  ['write a report as a Word document with a table of contents', 'docx', 'product'],
  ['accept all tracked changes in contract_v3.docx', 'docx', 'file_type'],
  [
    'turn my notes into a nicely formatted memo with headings and page numbers that opens in Word',
    'docx',
    'paraphrase',
  ],
  ['replace every occurrence of ACME with Globex in the word doc', 'docx', 'own_words'],
  ['add comments to the docx where the argument is weak', 'docx', 'file_type'],
  ['insert our letterhead at the top of this document and save as .docx', 'docx', 'own_words'],
  ['make me a wrod document from this text', 'docx', 'misspelling'],
  // xlsx
  ['add a column with the monthly growth rate to sales.xlsx', 'xlsx', 'file_type'],
  ['clean up this messy csv and compute totals per region', 'xlsx', 'file_type'],
  ['build a three statement financial model in Excel', 'xlsx', 'product'],
  ['my workbook shows #REF! errors everywhere, can you fix the formulas', 'xlsx', 'paraphrase'],
  ['create a spreadsheet tracking our hiring pipeline with a chart', 'xlsx', 'own_words'],
  ['fix the formulas in my spreadsheat', 'xlsx', 'misspelling'],
  ['convertir esta tabla a una hoja de cálculo de Excel', 'xlsx', 'loanword'],
  ['pivot the tsv export by customer and add subtotals', 'xlsx', 'file_type'],
  // pdf
  ['merge these three PDFs into one file', 'pdf', 'own_words'],
  ['fill out the fillable form in application.pdf', 'pdf', 'file_type'],
  ['OCR this scanned contract so I can search it', 'pdf', 'own_words'],
  ['pull the tables out of the annual report pdf into csv', 'pdf', 'file_type'],
  ['rotate pages 3 to 5 and add a CONFIDENTIAL watermark', 'pdf', 'paraphrase'],
  ['password protect this Acrobat file', 'pdf', 'product'],
  ['split the handbook into one file per chapter, it is a pdf', 'pdf', 'own_words'],
  // claude-api
  ['how do I stream responses from Claude with the Anthropic Python SDK', 'claude-api', 'product'],
  ['what is the model id for the latest Sonnet and how much does it cost per token', 'claude-api', 'product'],
  [
    'add tool use to my anthropic client so the model can call my weather function',
    'claude-api',
    'own_words',
  ],
  ['enable prompt caching for our long system prompt to cut costs', 'claude-api', 'paraphrase'],
  ['count tokens before sending a request to Opus', 'claude-api', 'product'],
  ['migrate our code from claude 3 to the newest model version', 'claude-api', 'own_words'],
  ['use the messages API in TypeScript with extended thinking', 'claude-api', 'own_words'],
  // mcp-builder
  ['build an MCP server that exposes our GitHub issues as tools', 'mcp-builder', 'own_words'],
  ['write a Model Context Protocol server in TypeScript for our CRM', 'mcp-builder', 'own_words'],
  ['let the assistant call our internal REST API through a tool server', 'mcp-builder', 'paraphrase'],
  ['FastMCP example for wrapping a weather API', 'mcp-builder', 'product'],
  ['how should I design tools so an LLM can use our ticketing system', 'mcp-builder', 'paraphrase'],
  ['set up an mcp servr in python', 'mcp-builder', 'misspelling'],
  // webapp-testing
  ['test the login flow of my local web app with Playwright', 'webapp-testing', 'product'],
  ['take a screenshot of localhost:3000 after clicking the submit button', 'webapp-testing', 'paraphrase'],
  ['check the browser console logs for errors on my dev server', 'webapp-testing', 'own_words'],
  ['automate clicking through the signup form in a headless browser', 'webapp-testing', 'paraphrase'],
  ['verify the frontend still works after my change, run it in chromium', 'webapp-testing', 'own_words'],
  ['debug why the UI button does nothing when clicked on my local site', 'webapp-testing', 'paraphrase'],
  // frontend-design
  [
    'design a distinctive landing page that does not look like a generic template',
    'frontend-design',
    'own_words',
  ],
  ['pick better typefaces and a bolder palette for my web app UI', 'frontend-design', 'paraphrase'],
  [
    'my website looks boring, give it a strong visual identity with nice fonts',
    'frontend-design',
    'paraphrase',
  ],
  ['restyle the dashboard interface with a clear aesthetic direction', 'frontend-design', 'own_words'],
  ['which fonts and colors should this portfolio site use', 'frontend-design', 'paraphrase'],
  ['make the UI less bland, add motion and texture', 'frontend-design', 'own_words'],
  // web-artifacts-builder
  [
    'build a multi-page React artifact with shadcn components and routing',
    'web-artifacts-builder',
    'product',
  ],
  [
    'create an interactive HTML app with Tailwind and state management bundled into one file',
    'web-artifacts-builder',
    'own_words',
  ],
  ['make a complex claude.ai artifact with several components', 'web-artifacts-builder', 'own_words'],
  ['bundle my react + vite project into a single html file', 'web-artifacts-builder', 'paraphrase'],
  ['set up shadcn/ui for an artifact with tabs and a form', 'web-artifacts-builder', 'product'],
  ['a kanban board artifact in React with drag and drop and state', 'web-artifacts-builder', 'paraphrase'],
  // canvas-design
  ['design a poster for our jazz night as a PNG', 'canvas-design', 'own_words'],
  ['create a minimalist art print I can frame, export as pdf', 'canvas-design', 'paraphrase'],
  ['make a book cover style image with beautiful typography', 'canvas-design', 'paraphrase'],
  ['I need a static visual design for a gallery wall', 'canvas-design', 'own_words'],
  ['draw an album cover for my band', 'canvas-design', 'paraphrase'],
  ['make an affiche for the festival', 'canvas-design', 'loanword'],
  // algorithmic-art
  ['create generative art with flow fields in p5.js', 'algorithmic-art', 'own_words'],
  ['make a particle system sketch with seeded randomness', 'algorithmic-art', 'own_words'],
  ['code some creative art using Perlin noise', 'algorithmic-art', 'paraphrase'],
  [
    'write a processing-style sketch that draws random trees with a seed slider',
    'algorithmic-art',
    'paraphrase',
  ],
  ['procedural artwork in javascript that I can tweak with parameters', 'algorithmic-art', 'paraphrase'],
  ['make algorithmic art of ocean waves', 'algorithmic-art', 'own_words'],
  // brand-guidelines
  ['apply our official brand colours and fonts to this report', 'brand-guidelines', 'own_words'],
  ['make these slides follow the company style guide', 'brand-guidelines', 'paraphrase'],
  ['use our corporate identity look and feel for the chart', 'brand-guidelines', 'paraphrase'],
  ['what are our brand typography rules for headings', 'brand-guidelines', 'own_words'],
  ['restyle this one-pager so it matches our branding', 'brand-guidelines', 'paraphrase'],
  ['are the accent colors in this deck on brand', 'brand-guidelines', 'own_words'],
  // theme-factory
  ['apply a theme to my slides, show me the preset options', 'theme-factory', 'own_words'],
  ['give this HTML page a cohesive colour palette and font pairing', 'theme-factory', 'paraphrase'],
  ['generate a new theme for our report, something oceanic', 'theme-factory', 'own_words'],
  ['restyle the document with one of the ten preset themes', 'theme-factory', 'own_words'],
  ['I want a sunset-style look across the deck and the landing page', 'theme-factory', 'paraphrase'],
  ['pick a matching set of colours and typefaces for this artifact', 'theme-factory', 'paraphrase'],
  // internal-comms
  ['write our weekly 3P update: progress, plans, problems', 'internal-comms', 'own_words'],
  ['draft an all-hands email announcing the reorg', 'internal-comms', 'paraphrase'],
  ['write the company newsletter for this month', 'internal-comms', 'own_words'],
  ['prepare a leadership update on the migration project', 'internal-comms', 'own_words'],
  ['write an incident report for yesterday’s outage to send internally', 'internal-comms', 'own_words'],
  ['a status report for my manager about the launch', 'internal-comms', 'own_words'],
  ['write a memo to staff about the new office hours', 'internal-comms', 'paraphrase'],
  // doc-coauthoring
  ['help me write a technical spec for the new billing service', 'doc-coauthoring', 'own_words'],
  ['co-write an RFC for moving to event sourcing', 'doc-coauthoring', 'paraphrase'],
  ['draft a decision doc comparing Postgres and DynamoDB with me', 'doc-coauthoring', 'own_words'],
  ['I need to write a proposal for a new team, walk me through it', 'doc-coauthoring', 'own_words'],
  ['let us write the design document for the search feature together', 'doc-coauthoring', 'paraphrase'],
  ['help me structure and draft a one-pager explaining our roadmap', 'doc-coauthoring', 'paraphrase'],
  // skill-creator
  ['create a new skill that formats our SQL style', 'skill-creator', 'own_words'],
  ['improve the description of my skill so it triggers more reliably', 'skill-creator', 'own_words'],
  ['write a SKILL.md for our deployment checklist', 'skill-creator', 'file_type'],
  ['run evals on my skill and benchmark it', 'skill-creator', 'own_words'],
  ['package this folder of scripts as an agent skill', 'skill-creator', 'paraphrase'],
  ['why does my skill never get picked? optimise it', 'skill-creator', 'paraphrase'],
  // slack-gif-creator
  ['make me a GIF of a cat dancing for Slack', 'slack-gif-creator', 'own_words'],
  ['create a custom animated emoji for our Slack workspace', 'slack-gif-creator', 'paraphrase'],
  ['a small looping animation of our logo spinning, for a slack reaction', 'slack-gif-creator', 'paraphrase'],
  ['animated gif of a rocket launching, under the slack size limit', 'slack-gif-creator', 'own_words'],
  ['make a bouncing party parrot style animation for chat', 'slack-gif-creator', 'paraphrase'],
  ['make a slack gif that says ship it', 'slack-gif-creator', 'own_words'],
];

// More requests in the user's own words for the tuning split (a second round): the first
// tuning split had too few that words alone miss to choose how meaning is fused with them.
const TUNE_PARAPHRASE: Array<[string, string]> = [
  ['I need something to show the board on a big screen tomorrow, ten pages or so', 'pptx'],
  ['shrink my forty page lecture into a handful of visual pages for class', 'pptx'],
  ['format my thesis chapter properly with a contents page, for Microsoft Word', 'docx'],
  ['my lawyer sent edits back, I want to approve some of their changes', 'docx'],
  ['work out the average order value per month from this export of orders', 'xlsx'],
  ['build me a loan repayment calculator with cells I can change', 'xlsx'],
  ['stitch the signed pages back into one document I can email', 'pdf'],
  ['make the scanned book searchable so I can find words in it', 'pdf'],
  ['call Haiku from node and get the answer back piece by piece as it is generated', 'claude-api'],
  ['which of the Anthropic models is cheapest for summarising support tickets', 'claude-api'],
  ['give the assistant hands on our Jira so it can open and close tickets itself', 'mcp-builder'],
  ['wrap our weather service so an agent can query it as actions', 'mcp-builder'],
  ['open my site on my machine and check that the menu opens when tapped', 'webapp-testing'],
  ['something on localhost throws errors in devtools, find out what', 'webapp-testing'],
  ['my product page looks like every other startup, make it memorable', 'frontend-design'],
  ['help me choose a look and feel for the settings screen, not the default style', 'frontend-design'],
  ['a small app in one html file with a sidebar, several views and a shared store', 'web-artifacts-builder'],
  [
    'prototype a React todo app with pages and components that I can paste as one artifact',
    'web-artifacts-builder',
  ],
  ['make a striking image for the concert, something I can print and hang', 'canvas-design'],
  ['design the cover art for my podcast', 'canvas-design'],
  ['write a program that draws a different abstract pattern each time with a random seed', 'algorithmic-art'],
  ['an animated field of drifting particles made with code for my portfolio background', 'algorithmic-art'],
  ['make this chart look like it came from our marketing department, same colours', 'brand-guidelines'],
  ['check the slides use the approved company fonts and colours', 'brand-guidelines'],
  ['give the report a warm autumn look, coordinated colours and fonts', 'theme-factory'],
  ['show me some ready-made styles for this deck so I can pick one', 'theme-factory'],
  ['tell the whole company the office is closed on Friday', 'internal-comms'],
  ["summarise for leadership what went wrong in last night's outage", 'internal-comms'],
  ['I want to write up how our new caching layer should work, help me shape it', 'doc-coauthoring'],
  ['plan and draft a proposal with me, asking questions as we go', 'doc-coauthoring'],
  ['turn my code review checklist into something the assistant can reuse every time', 'skill-creator'],
  ['my custom instructions package does not kick in when it should', 'skill-creator'],
  ['a small looping picture of a dog waving for our chat', 'slack-gif-creator'],
  ['make a reaction animation of a thumbs up that fits the emoji size limit', 'slack-gif-creator'],
];

// Harder paraphrases (a second round), written before the hybrid recall stage was measured
// and held out whole: the user's own words with little or no vocabulary shared with the skill.
// Never tune on these.
const HARD_HELDOUT: Array<[string, string]> = [
  ['I have a talk on Thursday, turn this outline into something I can click through on a projector', 'pptx'],
  ['what does the presenter say on each page of this lecture file', 'pptx'],
  ['tidy up my cover letter so it looks professional and send it back editable in Microsoft Office', 'docx'],
  ['show me who changed what in the redlined agreement and keep the revisions', 'docx'],
  ['tally the expenses per quarter in this ledger and keep the cells live', 'xlsx'],
  ['the numbers in my accounting grid do not add up, the sums are broken', 'xlsx'],
  ['combine the scans of my passport and visa into a single printable file', 'pdf'],
  ['the government paperwork has boxes I need to type into before printing', 'pdf'],
  ['how do I get Sonnet to reply token by token in my Python backend', 'claude-api'],
  ['our bill from Anthropic is too high, reuse the long instructions between calls', 'claude-api'],
  ['connect the chatbot to our inventory database so it can look things up on its own', 'mcp-builder'],
  ['expose our billing system to the assistant as a set of callable actions', 'mcp-builder'],
  ['click around my site running on port 8080 and tell me what breaks', 'webapp-testing'],
  [
    'make sure the checkout page on my laptop still renders after the refactor, grab an image of it',
    'webapp-testing',
  ],
  ['the homepage feels cookie-cutter, give it personality and a memorable look', 'frontend-design'],
  ['choose a striking visual style for the signup screen of my product', 'frontend-design'],
  [
    'a single self-contained page with several tabs and shared state, built with React',
    'web-artifacts-builder',
  ],
  ['prototype a small dashboard app with routing that ships as one html file', 'web-artifacts-builder'],
  ['produce a wall-worthy print for the lobby, abstract and calm', 'canvas-design'],
  ['make a flyer image for the bake sale', 'canvas-design'],
  ['write code that paints swirling lines that change every time you reload', 'algorithmic-art'],
  ['a mesmerising animation of dots drifting through a vector field in the browser', 'algorithmic-art'],
  ['make the quarterly chart use our house colours and logo fonts', 'brand-guidelines'],
  ['does this flyer respect the corporate visual rules', 'brand-guidelines'],
  ['give my deck a forest-green mood with matching fonts', 'theme-factory'],
  ['offer me a few ready-made looks for this handout and apply the one I like', 'theme-factory'],
  ['let everyone in the office know the parking garage closes next week', 'internal-comms'],
  ['summarise what my team shipped, what is next and what is blocking us for the execs', 'internal-comms'],
  ['help me think through and draft the architecture writeup for our new queue', 'doc-coauthoring'],
  ['I am writing a pitch for budget to my VP, work on it with me section by section', 'doc-coauthoring'],
  ['teach the assistant a reusable procedure for reviewing our pull requests', 'skill-creator'],
  ['my custom capability fires at the wrong times, tune its trigger wording', 'skill-creator'],
  ['a tiny moving picture of a taco for our team chat reactions', 'slack-gif-creator'],
  ['looping celebration clip small enough to upload as a custom emoji', 'slack-gif-creator'],
];

/** The labelled requests, with their split. */
export const REQUESTS: LabelledRequest[] = [
  ...RAW.map(([text, target, kind], i) => ({
    text,
    target,
    kind,
    split: i % 3 === 2 ? ('heldout' as const) : ('tune' as const),
  })),
  ...TUNE_PARAPHRASE.map(([text, target]) => ({
    text,
    target,
    kind: 'paraphrase' as const,
    split: 'tune' as const,
  })),
  ...HARD_HELDOUT.map(([text, target]) => ({
    text,
    target,
    kind: 'paraphrase' as const,
    split: 'heldout' as const,
  })),
];
