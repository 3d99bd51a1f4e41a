// Runs the compiled client (out/extension.js) against stand-ins for the `vscode` API and for
// `vscode-languageclient/node`, and checks what it does: the server it starts, the commands it
// registers (those package.json contributes), the requests the palette commands send and the
// documents they open, and what it says when the server cannot start.
//
// It does not run VS Code; run by `npm test` after the grammar tests.

'use strict';

const assert = require('assert');
const Module = require('module');
const path = require('path');

const extensionDir = path.resolve(__dirname, '..');
const manifest = require(path.join(extensionDir, 'package.json'));

// ---- the stand-ins --------------------------------------------------------------------------

const log = {
  clients: [], // every LanguageClient made: {id, serverOptions, clientOptions, started, stopped}
  requests: [], // every request sent: {type, params}
  opened: [], // every document opened: {content, language}
  shown: [], // every document shown
  errors: [],
  warnings: [],
  settingsOpened: [],
};
const state = {
  settings: { 'gdlc.path': 'gdlc' },
  editor: undefined,
  inputBox: undefined, // what showInputBox returns
  startFails: false,
  replies: {}, // the reply of each server command
  commands: new Map(),
  configListeners: [],
};

class LanguageClient {
  constructor(id, name, serverOptions, clientOptions) {
    this.record = { id, name, serverOptions, clientOptions, started: false, stopped: false };
    log.clients.push(this.record);
  }
  async start() {
    if (state.startFails) {
      throw new Error('spawn gdlc ENOENT');
    }
    this.record.started = true;
  }
  async stop() {
    this.record.stopped = true;
  }
  async dispose() {
    this.record.stopped = true;
  }
  isRunning() {
    return this.record.started && !this.record.stopped;
  }
  async sendRequest(type, params) {
    log.requests.push({ type, params });
    const reply = state.replies[params.command];
    if (reply instanceof Error) {
      throw reply;
    }
    return reply;
  }
}

const languageclient = {
  LanguageClient,
  ExecuteCommandRequest: { type: 'workspace/executeCommand' },
  TransportKind: { stdio: 0 },
};

const vscode = {
  ProgressLocation: { Notification: 15 },
  ViewColumn: { Beside: -2 },
  window: {
    get activeTextEditor() {
      return state.editor;
    },
    createOutputChannel: () => ({ appendLine() {}, dispose() {} }),
    showErrorMessage: async (message, ...actions) => {
      log.errors.push(message);
      return actions.includes('Open Settings') ? 'Open Settings' : undefined;
    },
    showWarningMessage: async (message) => {
      log.warnings.push(message);
    },
    showInputBox: async (options) => {
      if (state.inputBox !== undefined) {
        assert.ok(options.validateInput(state.inputBox) === undefined, `the input box refuses ${state.inputBox}`);
      }
      return state.inputBox;
    },
    withProgress: (_options, task) => task({ report() {} }, { onCancellationRequested() {} }),
    showTextDocument: async (document) => {
      log.shown.push(document);
    },
  },
  commands: {
    registerCommand: (id, run) => {
      assert.ok(!state.commands.has(id), `${id} registered twice`);
      state.commands.set(id, run);
      return { dispose() {} };
    },
    executeCommand: async (id, ...args) => {
      if (id === 'workbench.action.openSettings') {
        log.settingsOpened.push(args[0]);
      }
    },
  },
  workspace: {
    workspaceFolders: [{ uri: { scheme: 'file', fsPath: '/repo' } }],
    getConfiguration: (section) => ({
      get: (key, fallback) => state.settings[`${section}.${key}`] ?? fallback,
    }),
    onDidChangeConfiguration: (listener) => {
      state.configListeners.push(listener);
      return { dispose() {} };
    },
    openTextDocument: async (options) => {
      log.opened.push(options);
      return { options };
    },
  },
  languages: {
    getLanguages: async () => ['plaintext', 'gdl', 'gdl-infix', 'rust'],
  },
};

const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request === 'vscode') {
    return vscode;
  }
  if (request === 'vscode-languageclient/node') {
    return languageclient;
  }
  return load.call(this, request, parent, isMain);
};

// ---- the checks ------------------------------------------------------------------------------

function editorOn(languageId, uri) {
  return { document: { languageId, uri: { toString: () => uri } } };
}

function lastRequest() {
  return log.requests[log.requests.length - 1];
}

async function run(id) {
  const command = state.commands.get(id);
  assert.ok(command, `${id} is not registered`);
  await command();
}

async function changeSetting(key, value) {
  state.settings[key] = value;
  for (const listener of state.configListeners) {
    listener({ affectsConfiguration: (section) => key === section || key.startsWith(section + '.') });
  }
  await new Promise((resolve) => setTimeout(resolve, 10)); // the restart is not awaited
}

async function main() {
  const extension = require(path.join(extensionDir, 'out', 'extension.js'));
  const context = { subscriptions: [] };
  await extension.activate(context);

  // The server: `gdlc lsp` over stdio, for both languages, in files and untitled documents.
  assert.strictEqual(log.clients.length, 1);
  const client = log.clients[0];
  assert.strictEqual(client.id, 'gdlc', 'the id gdlc makes the client read gdlc.trace.server');
  assert.ok(manifest.contributes.configuration.properties['gdlc.trace.server']);
  assert.deepStrictEqual(client.serverOptions, { command: 'gdlc', args: ['lsp'], transport: 0 });
  const selected = client.clientOptions.documentSelector.map((s) => `${s.scheme}:${s.language}`).sort();
  assert.deepStrictEqual(selected, ['file:gdl', 'file:gdl-infix', 'untitled:gdl', 'untitled:gdl-infix']);
  const languages = manifest.contributes.languages.map((l) => l.id).sort();
  assert.deepStrictEqual(languages, ['gdl', 'gdl-infix']);
  assert.ok(client.started);

  // Every command of the palette is registered, and none of the server's (the client registers
  // those itself, and a second registration would fail).
  const contributed = manifest.contributes.commands.map((c) => c.command).sort();
  assert.deepStrictEqual([...state.commands.keys()].sort(), contributed);
  for (const serverCommand of ['gdlc.validate', 'gdlc.playout', 'gdlc.convert']) {
    assert.ok(!state.commands.has(serverCommand));
  }
  const titles = manifest.contributes.commands.map((c) => `${c.category}: ${c.title}`).sort();
  assert.deepStrictEqual(titles, [
    'GDL: Convert to KIF',
    'GDL: Convert to infix',
    'GDL: Random playout',
    'GDL: Restart server',
    'GDL: Validate game',
  ]);

  // Convert to infix: gdlc.convert [uri, "infix"], the reply opened as an infix document.
  state.editor = editorOn('gdl', 'file:///games/ticTacToe.kif');
  state.replies['gdlc.convert'] = { text: 'role(x)\n', language: 'gdl-infix' };
  await run('gdl.convertToInfix');
  assert.deepStrictEqual(lastRequest(), {
    type: 'workspace/executeCommand',
    params: { command: 'gdlc.convert', arguments: ['file:///games/ticTacToe.kif', 'infix'] },
  });
  assert.deepStrictEqual(log.opened.pop(), { content: 'role(x)\n', language: 'gdl-infix' });
  assert.strictEqual(log.shown.length, 1);

  // Convert to KIF, from an infix document.
  state.editor = editorOn('gdl-infix', 'file:///games/ticTacToe.hrf');
  state.replies['gdlc.convert'] = { text: '(role x)\n', language: 'gdl' };
  await run('gdl.convertToKif');
  assert.deepStrictEqual(lastRequest().params, { command: 'gdlc.convert', arguments: ['file:///games/ticTacToe.hrf', 'kif'] });
  assert.deepStrictEqual(log.opened.pop(), { content: '(role x)\n', language: 'gdl' });

  // Validate: gdlc.validate [uri]; a reply without a language is plain text.
  state.replies['gdlc.validate'] = { text: '5478 states, no finding' };
  await run('gdl.validate');
  assert.deepStrictEqual(lastRequest().params, { command: 'gdlc.validate', arguments: ['file:///games/ticTacToe.hrf'] });
  assert.deepStrictEqual(log.opened.pop(), { content: '5478 states, no finding', language: 'plaintext' });

  // Random playout: the seed typed, none when left empty, nothing sent when cancelled.
  state.replies['gdlc.playout'] = { text: 'terminal 8 goals x=0 o=100\n', language: 'plaintext' };
  state.inputBox = '7';
  await run('gdl.playout');
  assert.deepStrictEqual(lastRequest().params, { command: 'gdlc.playout', arguments: ['file:///games/ticTacToe.hrf', 7] });
  assert.deepStrictEqual(log.opened.pop(), { content: 'terminal 8 goals x=0 o=100\n', language: 'plaintext' });
  state.inputBox = '';
  await run('gdl.playout');
  assert.deepStrictEqual(lastRequest().params, { command: 'gdlc.playout', arguments: ['file:///games/ticTacToe.hrf'] });
  const sent = log.requests.length;
  state.inputBox = undefined;
  await run('gdl.playout');
  assert.strictEqual(log.requests.length, sent, 'a cancelled seed prompt sends nothing');

  // A reply of the wrong shape, or an error, is reported; nothing is opened.
  const opened = log.opened.length;
  state.replies['gdlc.validate'] = { summary: 'no text' };
  await run('gdl.validate');
  state.replies['gdlc.validate'] = new Error('the game does not parse');
  await run('gdl.validate');
  assert.strictEqual(log.opened.length, opened);
  assert.match(log.errors.pop(), /gdlc\.validate failed: the game does not parse/);
  assert.match(log.errors.pop(), /unexpected reply/);

  // Not a GDL document: a warning, no request.
  state.editor = editorOn('rust', 'file:///src/main.rs');
  await run('gdl.validate');
  assert.strictEqual(log.requests.length, sent + 2);
  assert.match(log.warnings.pop(), /open a GDL document/);

  // gdlc.path changed: the server restarts with the new executable, a relative path with a
  // directory being taken from the first workspace folder.
  await changeSetting('gdlc.path', 'target/release/gdlc');
  assert.strictEqual(log.clients.length, 2);
  assert.ok(log.clients[0].stopped);
  assert.strictEqual(log.clients[1].serverOptions.command, path.join('/repo', 'target/release/gdlc'));
  assert.ok(log.clients[1].started);

  // Restart server: a new client; and when the server cannot start, an error with a way to the
  // setting, and the commands say the server is not running.
  state.startFails = true;
  await run('gdl.restartServer');
  assert.strictEqual(log.clients.length, 3);
  assert.ok(log.clients[1].stopped);
  assert.match(log.errors.pop(), /could not start the language server `\/repo\/target\/release\/gdlc lsp`: spawn gdlc ENOENT/);
  assert.deepStrictEqual(log.settingsOpened, ['gdlc.path']);
  state.editor = editorOn('gdl', 'file:///games/ticTacToe.kif');
  await run('gdl.validate');
  assert.match(log.errors.pop(), /not running/);
  state.startFails = false;
  await run('gdl.restartServer');
  assert.ok(log.clients[3].started);

  await extension.deactivate();
  assert.ok(log.clients[3].stopped);
  console.log('extension client: 5 commands and the server start checked');
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
