// Tokenizes every description in the repository's examples/ (and, with GDL_GRAMMAR_CORPUS=DIR,
// every .kif / .hrf / .gdli / .infix under DIR) with the extension's TextMate grammars, and fails
// if a file has text no scope covers, an `invalid.*` scope, or parentheses left open at its end.
// For each game written in both syntaxes (examples/X.kif and examples/X.hrf), the two grammars
// must also classify the same names the same way, in the same order. And the Enter rules of
// language-configuration.json must reproduce the indentation of examples/*.kif (the layout of
// `gdlc fmt`: a rule's body four spaces in).
//
// Run by `npm test` after the scope assertions of vscode-tmgrammar-test.

'use strict';

const fs = require('fs');
const path = require('path');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const extensionDir = path.resolve(__dirname, '..');
const examplesDir = path.resolve(extensionDir, '..', '..', 'examples');
const manifest = JSON.parse(fs.readFileSync(path.join(extensionDir, 'package.json'), 'utf8'));

/** The scope name of each language id, and the language of each file extension. */
const scopeOfLanguage = new Map();
const grammarPaths = new Map();
for (const g of manifest.contributes.grammars) {
  scopeOfLanguage.set(g.language, g.scopeName);
  grammarPaths.set(g.scopeName, path.join(extensionDir, g.path));
}
const languageOfExtension = new Map();
for (const l of manifest.contributes.languages) {
  for (const ext of l.extensions) {
    languageOfExtension.set(ext, l.id);
  }
}

/** Where the KIF Enter rules put each line of a `.kif` example that follows another line of code,
 * when it is not where the file has it (an indentation unit of four spaces, as `gdlc fmt`). */
function indentationProblems(file, text) {
  const config = JSON.parse(fs.readFileSync(path.join(extensionDir, 'language-configuration.json'), 'utf8'));
  const rule = (indent) => new RegExp(config.onEnterRules.find((r) => r.action.indent === indent).beforeText);
  const [opens, closes] = [rule('indent'), rule('outdent')];
  const code = (line) => line.trim() !== '' && !line.trim().startsWith(';');
  const indent = (line) => line.length - line.trimStart().length;
  const lines = text.split(/\r?\n/);
  const problems = [];
  for (let i = 0; i + 1 < lines.length; i++) {
    const [line, next] = [lines[i], lines[i + 1]];
    if (!code(line) || !code(next)) {
      continue;
    }
    const step = opens.test(line) ? 4 : closes.test(line) ? -4 : 0;
    const expected = Math.max(0, indent(line) + step);
    if (indent(next) !== expected) {
      problems.push(`${file}:${i + 2}: Enter after line ${i + 1} indents ${expected} spaces, the file ${indent(next)}`);
    }
  }
  return problems;
}

async function registry() {
  const wasm = fs.readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  return new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (s) => new oniguruma.OnigString(s),
    }),
    loadGrammar: async (scopeName) => {
      const file = grammarPaths.get(scopeName);
      return file ? vsctm.parseRawGrammar(fs.readFileSync(file, 'utf8'), file) : null;
    },
  });
}

/** The tokens of `text` ({line, text, scopes}) and the depth of the rule stack at the end. */
function tokenize(grammar, text) {
  const tokens = [];
  let stack = vsctm.INITIAL;
  text.split(/\r?\n/).forEach((line, index) => {
    const result = grammar.tokenizeLine(line, stack);
    for (const t of result.tokens) {
      tokens.push({ line: index + 1, column: t.startIndex + 1, text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
    }
    stack = result.ruleStack;
  });
  return { tokens, depth: stack.depth };
}

/** What a token says about a name, for comparing the two syntaxes; null for other tokens. */
function kind(token) {
  const scope = token.scopes[token.scopes.length - 1];
  const kinds = [
    'keyword.control',
    'entity.name.function.relation',
    'entity.name.type.function',
    'constant.language.random',
    'constant.other.symbol',
    'constant.numeric',
    'variable.parameter',
  ];
  const k = kinds.find((prefix) => scope.startsWith(prefix + '.'));
  if (!k) {
    return null;
  }
  // KIF `?m` is infix `M`; a quoted infix name 'B' is KIF B.
  let name = token.text.replace(/^'(.*)'$/, '$1');
  if (k === 'variable.parameter') {
    name = name.replace(/^\?/, '').replace(/^'(.*)'$/, '$1').toLowerCase();
  }
  return `${k} ${name.toLowerCase()}`;
}

function check(grammar, file) {
  const text = fs.readFileSync(file, 'utf8');
  const { tokens, depth } = tokenize(grammar, text);
  const problems = [];
  for (const t of tokens) {
    const where = `${file}:${t.line}:${t.column}`;
    if (t.scopes.length === 1 && t.text.trim() !== '') {
      problems.push(`${where}: no scope for ${JSON.stringify(t.text)}`);
    }
    const invalid = t.scopes.find((s) => s.startsWith('invalid.'));
    if (invalid) {
      problems.push(`${where}: ${invalid} on ${JSON.stringify(t.text)}`);
    }
  }
  if (depth !== 1) {
    problems.push(`${file}: ${depth - 1} parenthes${depth === 2 ? 'is' : 'es'} still open at the end`);
  }
  return { problems, kinds: tokens.map(kind).filter((k) => k !== null) };
}

function descriptions(dir, recurse) {
  const found = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && recurse) {
      found.push(...descriptions(full, true));
    } else if (entry.isFile() && languageOfExtension.has(path.extname(entry.name)) && path.extname(entry.name) !== '.lisp') {
      found.push(full);
    }
  }
  return found.sort();
}

async function main() {
  const reg = await registry();
  const grammars = new Map();
  for (const [language, scope] of scopeOfLanguage) {
    grammars.set(language, await reg.loadGrammar(scope));
  }
  const files = descriptions(examplesDir, false);
  const corpus = process.env.GDL_GRAMMAR_CORPUS;
  if (corpus) {
    files.push(...descriptions(corpus, true));
  }
  if (files.length === 0) {
    throw new Error(`no descriptions found in ${examplesDir}`);
  }
  const problems = [];
  const kinds = new Map();
  for (const file of files) {
    const grammar = grammars.get(languageOfExtension.get(path.extname(file)));
    const result = check(grammar, file);
    problems.push(...result.problems);
    if (path.dirname(file) === examplesDir && file.endsWith('.kif')) {
      problems.push(...indentationProblems(file, fs.readFileSync(file, 'utf8')));
    }
    kinds.set(file, result.kinds);
  }
  let pairs = 0;
  for (const file of files) {
    const twin = file.replace(/\.kif$/, '.hrf');
    if (twin === file || !kinds.has(twin)) {
      continue;
    }
    pairs += 1;
    const [a, b] = [kinds.get(file), kinds.get(twin)];
    const n = Math.min(a.length, b.length);
    const first = [...Array(n).keys()].find((i) => a[i] !== b[i]);
    if (first !== undefined || a.length !== b.length) {
      const i = first ?? n;
      problems.push(`${file} and ${twin} classify names differently at name ${i + 1}: ${a[i]} / ${b[i]}`);
    }
  }
  for (const p of problems) {
    console.error(p);
  }
  console.log(`${files.length} descriptions tokenized, ${pairs} KIF/infix pair(s) compared, ${problems.length} problem(s)`);
  if (problems.length > 0 || pairs === 0) {
    process.exitCode = 1;
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
