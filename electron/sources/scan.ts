/**
 * Static rules run over a skill from a source before it is installed: what its instructions and
 * code could do that a user would want to know first. Rules are patterns, so they can be fooled
 * and can misfire; they are a first look, not a verdict, which is why a high finding asks the user
 * to accept it explicitly rather than silently blocking or allowing the skill.
 */
import type { ScanFinding, ScanReport, Severity } from '../contract/sources.js';
import type { SkillPackage } from '../skills/index.js';

export type { ScanFinding, ScanReport, Severity };

interface Rule {
  id: string;
  severity: Severity;
  message: string;
  pattern: RegExp;
  /** Which text the rule reads: instructions (prose the model reads), code, or both. */
  on: 'code' | 'text' | 'any';
}

// Bidi controls, zero-width characters, word joiner and BOM, and Unicode tag characters: text the
// model reads and a reviewer does not see.
const HIDDEN = /[\u202A-\u202E\u2066-\u2069\u200B-\u200D\u2060\u2062-\u2064\uFEFF\u{E0000}-\u{E007F}]/u;

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
    pattern: /\b(?:exec|eval|compile)\s*\(|\bnew\s+Function\(|\b__import__\s*\(/,
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
  /\b(?:exec|eval)\s*\(|\bnew\s+Function\(|\b(?:b64decode|a85decode|b32decode|fromhex|unhexlify|atob|Buffer\.from)\s*\(|\bmarshal\.loads|\bzlib\.decompress/;

/** A short, visible excerpt of `text` around `index`. */
function excerptAt(text: string, index: number, length: number): string {
  const start = Math.max(0, index - 20);
  const raw = text.slice(start, Math.min(text.length, index + Math.min(length, 80) + 20));
  return showInvisible(raw.replace(/\s+/g, ' ').trim());
}

/** Invisible and bidi characters written as `<U+XXXX>`, so a report shows what is there. */
export function showInvisible(s: string): string {
  return s.replace(
    new RegExp(HIDDEN.source, 'gu'),
    (c) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`,
  );
}

function lineOf(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

const CODE_KINDS = new Set(['code_template', 'dspy_module']);
const CODE_FILE = /\.(?:py|js|mjs|cjs|ts|sh|bash|zsh|ps1|rb|pl|php|bat|cmd)$/i;

/** Whether an artifact is code (run) rather than prose (read by the model). */
function isCode(a: SkillPackage['artifacts'][number]): boolean {
  if (CODE_KINDS.has(a.kind)) return true;
  const path = typeof a.metadata?.path === 'string' ? a.metadata.path : a.name;
  return a.kind === 'resource' && (CODE_FILE.test(path) || /^scripts\//.test(path));
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
    const hidden = HIDDEN.exec(text);
    // A BOM at the very start of a file is an encoding mark, not hidden text.
    if (hidden && !(hidden.index === 0 && text.charCodeAt(0) === 0xfeff && !HIDDEN.test(text.slice(1)))) {
      add({
        rule: 'hidden-unicode',
        severity: 'high',
        where: at(hidden.index),
        message: 'holds invisible or text-direction characters (bidi controls, zero-width or tag characters)',
        excerpt: excerptAt(text, hidden.index, 1),
      });
    }
    for (const r of RULES) {
      if (r.on === 'code' && !code) continue;
      if (r.on === 'text' && code) continue;
      const m = r.pattern.exec(text);
      if (m)
        add({
          rule: r.id,
          severity: r.severity,
          where: at(m.index),
          message: r.message,
          excerpt: excerptAt(text, m.index, m[0].length),
        });
    }
    const enc = ENCODED.exec(text);
    if (enc) {
      const runs = DECODE_AND_RUN.test(text);
      add({
        rule: 'encoded-payload',
        severity: runs && code ? 'high' : runs ? 'medium' : 'low',
        where: at(enc.index),
        message: runs
          ? 'holds a long encoded blob beside code that decodes or runs it (an obfuscated payload)'
          : 'holds a long encoded blob',
        excerpt: excerptAt(text, enc.index, 40),
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
    // A component is binary: its imports are listed as permissions, not pattern-matched.
    if (a.kind === 'wasm_component') continue;
    scanText(a.content, `artifact ${a.name}`, isCode(a), true);
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
