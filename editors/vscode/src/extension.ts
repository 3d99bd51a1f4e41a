// The VS Code client of the gdlc language server: starts `gdlc lsp` over stdio for GDL documents
// (KIF: language id `gdl`; infix: `gdl-infix`) and adds the palette commands that run the
// server's commands (`workspace/executeCommand`) on the active document.

import * as os from 'os';
import * as path from 'path';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';

/** The language ids the server reads. */
const LANGUAGES = ['gdl', 'gdl-infix'];

/** What the server's commands return: a text to show, in a language (plain text if none). */
interface CommandResult {
  text: string;
  language?: string;
}

let client: LanguageClient | undefined;
let output: vscode.OutputChannel | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel('GDL Language Server');
  context.subscriptions.push(output);

  const commands: [string, () => Promise<void>][] = [
    ['gdl.validate', () => runServerCommand('gdlc.validate', [], 'Validating the game')],
    ['gdl.playout', playout],
    ['gdl.convertToInfix', () => runServerCommand('gdlc.convert', ['infix'], 'Converting to infix')],
    ['gdl.convertToKif', () => runServerCommand('gdlc.convert', ['kif'], 'Converting to KIF')],
    ['gdl.restartServer', restart],
  ];
  for (const [id, run] of commands) {
    context.subscriptions.push(vscode.commands.registerCommand(id, run));
  }
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('gdlc.path')) {
        void restart();
      }
    }),
  );

  await start();
}

export function deactivate(): Thenable<void> | undefined {
  return stop();
}

/** The `gdlc` executable of the setting `gdlc.path`: `~/` is the home directory, and a relative
 * path with a directory in it is taken from the first workspace folder (a bare name is looked up
 * in `PATH`). */
function serverCommand(): string {
  const configured = vscode.workspace.getConfiguration('gdlc').get<string>('path', 'gdlc').trim();
  if (configured === '') {
    return 'gdlc';
  }
  if (configured === '~' || configured.startsWith('~/')) {
    return path.join(os.homedir(), configured.slice(1));
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!path.isAbsolute(configured) && /[\\/]/.test(configured) && folder?.uri.scheme === 'file') {
    return path.join(folder.uri.fsPath, configured);
  }
  return configured;
}

/** Starts the server; if it cannot start, says why and how to fix it, and leaves no client. */
async function start(): Promise<void> {
  const command = serverCommand();
  const serverOptions: ServerOptions = { command, args: ['lsp'], transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: LANGUAGES.flatMap((language) => [
      { scheme: 'file', language },
      { scheme: 'untitled', language },
    ]),
    outputChannel: output,
  };
  // The id `gdlc` makes the client read its trace level from the setting `gdlc.trace.server`.
  const candidate = new LanguageClient('gdlc', 'GDL Language Server', serverOptions, clientOptions);
  try {
    await candidate.start();
    client = candidate;
  } catch (error) {
    void candidate.dispose().then(undefined, () => undefined);
    const action = 'Open Settings';
    const choice = await vscode.window.showErrorMessage(
      `GDL: could not start the language server \`${command} lsp\`: ${message(error)}. ` +
        'Install gdlc (`cargo install --path gdlc` in its repository) or set `gdlc.path`.',
      action,
    );
    if (choice === action) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'gdlc.path');
    }
  }
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop();
    } catch (error) {
      output?.appendLine(`stopping the server: ${message(error)}`);
    }
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

/** "GDL: Random playout": asks for a seed (empty for a random one), then runs `gdlc.playout`. */
async function playout(): Promise<void> {
  const seed = await vscode.window.showInputBox({
    title: 'GDL: Random playout',
    prompt: 'The seed of the playout (leave empty for a random seed)',
    placeHolder: 'e.g. 1',
    validateInput: (value) =>
      parseSeed(value) === undefined ? 'a whole number from 0 to 9007199254740991, or nothing' : undefined,
  });
  if (seed === undefined) {
    return; // cancelled
  }
  const parsed = parseSeed(seed);
  await runServerCommand('gdlc.playout', parsed === null || parsed === undefined ? [] : [parsed], 'Playing a random game');
}

/** A seed typed by the user: `null` for none, `undefined` if it is not a safe whole number. */
function parseSeed(value: string): number | null | undefined {
  const text = value.trim();
  if (text === '') {
    return null;
  }
  const seed = Number(text);
  return /^[0-9]+$/.test(text) && Number.isSafeInteger(seed) ? seed : undefined;
}

/** Runs the server command `command` with the active GDL document's uri and then `extra` as
 * arguments, and opens the text it returns in a new untitled document beside it. */
async function runServerCommand(command: string, extra: unknown[], title: string): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || !LANGUAGES.includes(editor.document.languageId)) {
    void vscode.window.showWarningMessage('GDL: open a GDL document (KIF or infix) first.');
    return;
  }
  const running = client;
  if (!running || !running.isRunning()) {
    void vscode.window.showErrorMessage('GDL: the gdlc language server is not running (try "GDL: Restart server").');
    return;
  }
  const uri = editor.document.uri.toString();
  let result: unknown;
  let cancelled = false;
  try {
    result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `GDL: ${title}…`, cancellable: true },
      (_progress, token) => {
        token.onCancellationRequested(() => (cancelled = true));
        return running.sendRequest(ExecuteCommandRequest.type, { command, arguments: [uri, ...extra] }, token);
      },
    );
  } catch (error) {
    if (!cancelled) {
      void vscode.window.showErrorMessage(`GDL: ${command} failed: ${message(error)}`);
    }
    return;
  }
  if (cancelled || result === null || result === undefined) {
    return;
  }
  if (!isCommandResult(result)) {
    void vscode.window.showErrorMessage(`GDL: ${command} returned an unexpected reply.`);
    output?.appendLine(`${command} returned ${JSON.stringify(result)}`);
    return;
  }
  const known = await vscode.languages.getLanguages();
  const language = result.language && known.includes(result.language) ? result.language : 'plaintext';
  const document = await vscode.workspace.openTextDocument({ content: result.text, language });
  await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, preview: false });
}

function isCommandResult(value: unknown): value is CommandResult {
  if (typeof value !== 'object' || value === null) {
    return false;
  }
  const record = value as Record<string, unknown>;
  return typeof record.text === 'string' && (record.language === undefined || typeof record.language === 'string');
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
