/**
 * Static rules run over a skill from a source before it is installed: what its instructions and
 * code could do that a user would want to know first. Rules are patterns, so they can be fooled
 * and can misfire; they are a first look, not a verdict, which is why a high finding asks the user
 * to accept it explicitly rather than silently blocking or allowing the skill.
 */
import type { ScanFinding, ScanReport, Severity } from '../contract/sources.js';
import { HOST_FUNCTION_EFFECTS, KINDS } from '../kinds/index.js';
import type { SkillPackage } from '../skills/index.js';
import {
  entropy,
  type FoldedText,
  firstHidden,
  firstMixedScriptWord,
  foldText,
  joinPieces,
  showInvisible,
} from './scan-fold.js';

export type { ScanFinding, ScanReport, Severity };
export { showInvisible };

interface Rule {
  id: string;
  severity: Severity;
  message: string;
  pattern: RegExp;
  /** Which text the rule reads: instructions (prose the model reads), code, or both. */
  on: 'code' | 'text' | 'any';
}

const RULES: Rule[] = [
  {
    id: 'prompt-injection',
    severity: 'high',
    on: 'any',
    message: 'tells the model to set aside its instructions or to hide what it does from the user',
    pattern:
      /\b(?:ignore|disregard|forget|override)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|system|other)\s+(?:instructions|prompts?|rules|messages)|\bdo\s+not\s+(?:tell|inform|mention\s+(?:this\s+)?to|show)\s+the\s+user|\bwithout\s+(?:asking|telling|informing|notifying)\s+the\s+user|\byou\s+are\s+now\s+(?:in\s+)?(?:developer|dan|jailbreak|unrestricted)|\breveal\s+(?:your|the)\s+system\s+prompt/i,
  },
  {
    id: 'credential-read',
    severity: 'high',
    on: 'any',
    message: 'reads credentials or private files of the home folder',
    pattern:
      /~\/\.ssh|\bid_(?:rsa|ed25519|ecdsa)\b|\.aws\/credentials|\.git-credentials|\.netrc\b|\.npmrc\b|\.pypirc\b|\.docker\/config\.json|\.kube\/config|\/etc\/(?:passwd|shadow)\b|\bkeychain\b|Login Data|\.config\/gcloud|(?:^|[\s'"(])\.env\b/i,
  },
  {
    id: 'secret-env',
    severity: 'medium',
    on: 'code',
    message: 'reads environment variables (where API keys live)',
    pattern:
      /\bos\.environ\b|\bos\.getenv\(|\bprocess\.env\b|\bgetenv\(|\$\{?[A-Z_]*(?:KEY|TOKEN|SECRET|PASSWORD)\b/,
  },
  {
    id: 'remote-script',
    severity: 'high',
    on: 'any',
    message: 'downloads a script and runs it',
    pattern:
      /\b(?:curl|wget)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|\biex\s*\(\s*(?:new-object|iwr|invoke-webrequest)/i,
  },
  {
    id: 'shell',
    severity: 'medium',
    on: 'code',
    message: 'runs shell commands or other programs',
    pattern:
      /\bsubprocess\b|\bos\.(?:system|popen|exec[lv]p?e?)\b|\bchild_process\b|\bexecSync\(|\bspawn\(|\bRuntime\.getRuntime\(\)\.exec|\bbash\s+-c\b|\bsh\s+-c\b/,
  },
  {
    id: 'network',
    severity: 'medium',
    on: 'code',
    message: 'reaches the network',
    pattern:
      /\b(?:requests|httpx|aiohttp|urllib3?|http\.client)\b|\bsocket\.|\bfetch\(|\bXMLHttpRequest\b|\bWebSocket\(|\b(?:curl|wget|nc|ncat)\s+-?|\bInvoke-WebRequest\b/,
  },
  {
    id: 'dynamic-code',
    severity: 'medium',
    on: 'code',
    message: 'builds and runs code at run time (exec/eval)',
    // Also a name looked up from a string (`getattr(builtins, "ev" + "al")`, read with the pieces
    // joined), which a plain `exec(` pattern misses.
    pattern:
      /\b(?:exec|eval|compile)\s*\(|\bnew\s+Function\(|\b__import__\s*\(|\b(?:getattr|__getattribute__)\s*\([^)]*['"](?:exec|eval|compile|__import__|system|popen)['"]|\b(?:__builtins__|globals\(\)|vars\(\))\s*\[\s*['"](?:exec|eval|compile|__import__)['"]/,
  },
  {
    id: 'destructive',
    severity: 'high',
    on: 'any',
    message: 'deletes files recursively or rewrites system settings',
    pattern:
      /\brm\s+-[a-z]*r[a-z]*f?\s+(?:~|\/|\$HOME)|\bshutil\.rmtree\(\s*(?:os\.path\.expanduser|['"]\/|['"]~)|\bmkfs\b|\bdd\s+if=/i,
  },
];

// A long run of base64 or hex: a payload a reviewer cannot read.
const ENCODED = /[A-Za-z0-9+/]{160,}={0,2}|(?:\\x[0-9a-fA-F]{2}){40,}|\b[0-9a-fA-F]{200,}\b/;
const DECODE_AND_RUN =
  /\b(?:exec|eval)\s*\(|\bnew\s+Function\(|\b(?:b64decode|b85decode|a85decode|b32decode|fromhex|unhexlify|atob|Buffer\.from)\s*\(|\bcodecs\.decode\s*\(|\bmarshal\.loads|\bzlib\.decompress|\bgetattr\s*\([^)]*['"](?:exec|eval)['"]/;

/**
 * Whether a run found only once pieces were joined is a payload rather than words that happen to
 * sit in adjacent strings or lines: hex, or base64 with the spread of characters random bytes give
 * (English words joined stay near 4 bits a character and rarely mix digits and both cases).
 */
function looksEncoded(run: string): boolean {
  if (/^(?:\\x[0-9a-fA-F]{2})+$|^[0-9a-fA-F]+$/.test(run)) return true;
  return /[0-9+/]/.test(run) && /[A-Z]/.test(run) && /[a-z]/.test(run) && entropy(run) >= 4.6;
}

/** A short, visible excerpt of `text` around `index`. */
function excerptAt(text: string, index: number, length: number): string {
  const start = Math.max(0, index - 20);
  const raw = text.slice(start, Math.min(text.length, index + Math.min(length, 80) + 20));
  return showInvisible(raw.replace(/\s+/g, ' ').trim());
}

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** How the scanner reads an artifact: as code (run), as prose (read by the model), or not (binary). */
function readAs(a: SkillPackage['artifacts'][number]): 'code' | 'prose' | 'skip' {
  const r = KINDS[a.kind].review(a, HOST_FUNCTION_EFFECTS);
  return r.binary ? 'skip' : r.code ? 'code' : 'prose';
}

/** A match in one of the views, placed in the original text. */
interface Placed {
  /** Index in the original text. */
  start: number;
  /** Length in the original text. */
  length: number;
  /** What the view read there, when it differs from what the original spells. */
  readsAs: string | null;
}

function place(view: FoldedText, original: string, m: RegExpExecArray): Placed {
  const start = view.origin[m.index] ?? 0;
  const lastOrigin = view.origin[m.index + m[0].length - 1] ?? start;
  const end = lastOrigin + (original.codePointAt(lastOrigin)! > 0xffff ? 2 : 1);
  const spelled = original.slice(start, end);
  return { start, length: end - start, readsAs: spelled === m[0] ? null : m[0] };
}

/** The first match of `re` in the views, in order, placed in the original. */
function firstIn(
  views: FoldedText[],
  original: string,
  re: RegExp,
  accept?: (s: string) => boolean,
): Placed | null {
  for (const v of views) {
    const g = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    for (let m = g.exec(v.text); m; m = g.exec(v.text)) {
      if (!accept || accept(m[0])) return place(v, original, m);
      if (m[0].length === 0) g.lastIndex++;
    }
  }
  return null;
}

/** The message, saying what a disguised match reads as. */
function withReading(message: string, p: Placed): string {
  if (!p.readsAs) return message;
  const shown = p.readsAs.replace(/\s+/g, ' ').slice(0, 60);
  return `${message}; written with look-alike, compatibility, invisible or split characters, it reads as "${shown}"`;
}

/** Run every rule over a package: its fields, each artifact (not components' bytes), allowed tools. */
export function scanPackage(pkg: SkillPackage): ScanReport {
  const findings: ScanFinding[] = [];
  const seen = new Set<string>();
  const add = (f: ScanFinding) => {
    const key = `${f.rule}\u0000${f.where}`;
    if (seen.has(key)) return;
    seen.add(key);
    findings.push(f);
  };
  const scanText = (text: string, where: string, code: boolean, withLine: boolean) => {
    const at = (i: number) => (withLine ? `${where} line ${lineOf(text, i)}` : where);
    const hidden = firstHidden(text);
    if (hidden >= 0) {
      add({
        rule: 'hidden-unicode',
        severity: 'high',
        where: at(hidden),
        message:
          'holds invisible or text-direction characters (bidi controls, zero-width, tag or other format characters)',
        excerpt: excerptAt(text, hidden, 1),
      });
    }
    const mixed = firstMixedScriptWord(text);
    if (mixed) {
      add({
        rule: 'mixed-script',
        severity: 'medium',
        where: at(mixed.index),
        message: `mixes look-alike letters of different scripts in one word (${mixed.scripts.join(' and ')}: ${mixed.disguised.join(', ')}), a way to pass a word by a reader or a filter`,
        excerpt: excerptAt(text, mixed.index, mixed.word.length),
      });
    }
    // The rules read the text as folded (what Python and a model read), then with split strings
    // and lines joined; the first view is tried first so a plain match keeps its place.
    const folded = foldText(text);
    const joined = joinPieces(folded);
    const views = joined === folded ? [folded] : [folded, joined];
    for (const r of RULES) {
      if (r.on === 'code' && !code) continue;
      if (r.on === 'text' && code) continue;
      const p = firstIn(views, text, r.pattern);
      if (p)
        add({
          rule: r.id,
          severity: r.severity,
          where: at(p.start),
          message: withReading(r.message, p),
          excerpt: excerptAt(text, p.start, p.length),
        });
    }
    const enc =
      firstIn([folded], text, ENCODED) ??
      (joined === folded ? null : firstIn([joined], text, ENCODED, (run) => looksEncoded(run)));
    if (enc) {
      const runs = views.some((v) => DECODE_AND_RUN.test(v.text));
      add({
        rule: 'encoded-payload',
        severity: runs && code ? 'high' : runs ? 'medium' : 'low',
        where: at(enc.start),
        message: runs
          ? 'holds a long encoded blob beside code that decodes or runs it (an obfuscated payload)'
          : 'holds a long encoded blob',
        excerpt: excerptAt(text, enc.start, 40),
      });
    }
  };

  for (const field of ['name', 'description', 'when'] as const) {
    const v = pkg[field];
    if (typeof v === 'string') scanText(v, field, false, false);
  }
  for (const phrase of [...(pkg.trigger_phrases ?? []), ...(pkg.intent_patterns ?? [])])
    scanText(phrase, 'trigger phrases', false, false);
  for (const [k, v] of Object.entries(pkg.metadata ?? {})) scanText(v, `metadata ${k}`, false, false);
  for (const a of pkg.artifacts) {
    // A binary artifact (a component) has its imports listed as permissions, not pattern-matched.
    const as = readAs(a);
    if (as === 'skip') continue;
    scanText(a.content, `artifact ${a.name}`, as === 'code', true);
  }
  for (const f of broadTools(pkg.allowed_tools ?? '')) add(f);

  const order: Severity[] = ['high', 'medium', 'low'];
  findings.sort((a, b) => order.indexOf(a.severity) - order.indexOf(b.severity));
  return { max_severity: findings[0]?.severity ?? 'none', findings };
}

/** Allowed tools broader than any one purpose: a shell without limits, or every tool. */
function broadTools(allowed: string): ScanFinding[] {
  const out: ScanFinding[] = [];
  for (const token of allowed.split(/[\s,]+/).filter(Boolean)) {
    const m = /^([A-Za-z_*]+)(?:\((.*)\))?$/.exec(token);
    const tool = m?.[1] ?? token;
    const arg = m?.[2];
    const unlimited = arg === undefined || arg === '*' || arg === '*:*' || arg === '';
    if (tool === '*' || (/^bash$/i.test(tool) && unlimited)) {
      out.push({
        rule: 'broad-permissions',
        severity: 'high',
        where: 'allowed_tools',
        message: 'asks for any shell command (or every tool) without limits',
        excerpt: token,
      });
    } else if (/^bash$/i.test(tool) && /\*/.test(arg ?? '')) {
      out.push({
        rule: 'broad-permissions',
        severity: 'medium',
        where: 'allowed_tools',
        message: 'asks for shell commands matched by a wildcard',
        excerpt: token,
      });
    } else if (/^(?:write|edit|multiedit|webfetch)$/i.test(tool) && unlimited) {
      out.push({
        rule: 'broad-permissions',
        severity: 'low',
        where: 'allowed_tools',
        message: `asks for ${tool} without limits`,
        excerpt: token,
      });
    }
  }
  return out;
}

/** True when a report has a finding the user must accept before install. */
export function needsRiskAcceptance(report: ScanReport): boolean {
  return report.findings.some((f) => f.severity === 'high');
}
