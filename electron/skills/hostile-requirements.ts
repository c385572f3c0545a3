/**
 * Hostile `requirements.txt` lines for tests: each would make pip read an option, a URL, a path or
 * an environment variable if it were handed the skill's text. `index` is a URL that must never be
 * asked (a loopback server in the tests). Each case says what the refusal must name.
 */
export function hostileRequirementLines(
  index: string,
): Array<{ label: string; line: string; names: string }> {
  const out: Array<{ label: string; line: string; names: string }> = [];
  const vis = (c: string) => `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`;
  const dollar = '$' + '{';
  // Every character Python's str.splitlines() (so pip) ends a line at, besides LF and CRLF.
  for (const ch of ['\r', '\x0b', '\x0c', '\x1c', '\x1d', '\x1e', '\x85', '\u2028', '\u2029']) {
    out.push({
      label: `line break ${vis(ch)}`,
      line: `rt4pkg==1.0 ; python_version >= "3"${ch}--index-url ${index}/${dollar}OPENAI_API_KEY}/simple/`,
      names: vis(ch),
    });
  }
  // Control and invisible format characters: C0, DEL, soft hyphen, zero-width, bidi, BOM inside.
  for (const ch of [
    '\x00',
    '\x07',
    '\x1b',
    '\x7f',
    '\u00ad',
    '\u200b',
    '\u200c',
    '\u200d',
    '\u200e',
    '\u202e',
    '\u2066',
    '\u2060',
    '\ufeff',
  ]) {
    out.push({
      label: `control/format ${vis(ch)}`,
      line: `pkg==1.0${ch} ; python_version >= "3"`,
      names: vis(ch),
    });
  }
  // ${VAR} in every position pip would expand it.
  for (const [where, line] of [
    ['name', `${dollar}OPENAI_API_KEY}`],
    ['extras', `pkg[${dollar}OPENAI_API_KEY}]`],
    ['version', `pkg==${dollar}OPENAI_API_KEY}`],
    ['marker', `pkg ; sys_platform == "${dollar}OPENAI_API_KEY}"`],
    ['hash', `pkg --hash=sha256:${dollar}OPENAI_API_KEY}`],
    ['comment', `pkg # ${dollar}OPENAI_API_KEY}`],
    ['option value', `--index-url ${index}/${dollar}OPENAI_API_KEY}/`],
  ] as const) {
    out.push({ label: `\${VAR} in the ${where}`, line, names: `"${dollar}"` });
  }
  // Every pip option, in full, short and =-joined forms, on its own line and after a requirement.
  const options: Array<[string, string | null, string | null]> = [
    ['--index-url', '-i', index],
    ['--extra-index-url', null, index],
    ['--find-links', '-f', index],
    ['--trusted-host', null, '127.0.0.1'],
    ['--pre', null, null],
    ['--no-binary', null, ':all:'],
    ['--only-binary', null, ':none:'],
    ['--config-settings', null, 'key=value'],
    ['--global-option', null, '--verbose'],
    ['--install-option', null, '--prefix=/tmp/x'],
    ['--use-feature', null, 'truststore'],
    ['--prefer-binary', null, null],
    ['--no-index', null, null],
    ['--require-hashes', null, null],
    ['--editable', '-e', './local'],
    ['--requirement', '-r', 'other.txt'],
    ['--constraint', '-c', 'constraints.txt'],
  ];
  for (const [long, short, value] of options) {
    const forms: Array<[string, string]> = [];
    if (value === null) forms.push([long, long]);
    else {
      forms.push([long, `${long} ${value}`], [long, `${long}=${value}`]);
      if (short) forms.push([short, `${short} ${value}`], [short, `${short}${value}`]);
    }
    for (const [name, text] of forms) {
      out.push({ label: `option ${text}`, line: text, names: `"${name}"` });
      out.push({
        label: `option after a requirement: ${text}`,
        line: `pkg==1.0 ${text}`,
        names: `"${name}"`,
      });
    }
  }
  // Direct references, URLs and paths.
  for (const [label, line, names] of [
    ['@ file://', 'pkg @ file:///tmp/project', '"@"'],
    ['@ https://', `pkg @ ${index}/pkg-1.0-py3-none-any.whl`, '"@"'],
    ['@ joined', `pkg@${index}/pkg.whl`, 'URL'],
    ['a URL', `${index}/pkg-1.0-py3-none-any.whl`, 'URL'],
    ['a VCS URL', 'git+https://example.com/x.git#egg=x', 'URL'],
    ['a relative path', './local/project', 'path'],
    ['an absolute path', '/tmp/project', 'path'],
    ['an archive name', 'pkg-1.0-py3-none-any.whl', 'archive'],
  ] as const) {
    out.push({ label, line, names });
  }
  // Markers with nested or unbalanced quotes, or a value hiding an option.
  for (const [label, line, names] of [
    ['nested quotes', `pkg ; python_version >= "3'"`, 'quote inside'],
    ['nested quotes hiding an option', `pkg ; python_version >= '3" --index-url ${index} "'`, 'quote inside'],
    ['unclosed quote', `pkg ; python_version >= "3`, 'not closed'],
    ['an option in a quoted value', 'pkg ; python_version >= "3 --pre"', 'a space'],
    ['a variable off the list', 'pkg ; os_name == "posix"', '"os_name"'],
    ['two variables', 'pkg ; python_version == python_full_version', 'one variable'],
  ] as const) {
    out.push({ label, line, names });
  }
  // Continuations that would join an option onto a requirement, or into a comment.
  out.push({
    label: 'continued onto an option',
    line: `pkg==1.0 \\\n--index-url ${index}`,
    names: '"--index-url"',
  });
  out.push({
    label: 'backslash in a comment',
    line: `pkg # note \\\n--index-url ${index}`,
    names: 'backslash',
  });
  out.push({ label: 'a stray backslash', line: 'pkg\\x', names: 'backslash' });
  return out;
}
