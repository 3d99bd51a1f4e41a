//! `gdlc lsp`: a Language Server Protocol server over standard input and output, on the
//! `lsp-server` and `lsp-types` crates.
//!
//! One thread reads messages ([`transport`]), one writes them; the main loop keeps the open
//! documents and hands each version to the analysis thread, which checks the latest version of
//! each document with the front end of `gdlc check` ([`document::analyse`]). Diagnostics are
//! published only for the version a document still has, and a request about a document waits
//! for the analysis of its current version, then runs on a thread of its own
//! ([`requests::answer`]), so that a slow check or command never blocks the next edit. A
//! cancelled request is answered `RequestCancelled` at once, a running validation stopped, and
//! a running request's late answer dropped ([`cancel`]).

mod cancel;
mod commands;
mod complete;
mod diagnostics;
mod document;
mod format;
mod hover;
mod navigate;
mod occurrences;
mod requests;
mod tokens;
mod transport;

use std::collections::HashMap;
use std::io::{BufReader, BufWriter};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, select};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionProviderCapability, CompletionOptions,
    DocumentOnTypeFormattingOptions, ExecuteCommandOptions, InitializeResult, OneOf,
    PublishDiagnosticsParams, RenameOptions, SemanticTokensFullOptions, SemanticTokensOptions,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};

use document::Snapshot;
use transport::Incoming;

/// The arguments of `gdlc lsp`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Talk over standard input and output: the only transport, the default (editors' clients
    /// pass the flag).
    #[arg(long)]
    pub stdio: bool,
}

/// Runs the server until the client says `exit` or closes its end: exit code 0 after a
/// `shutdown` request, 1 otherwise (as the protocol says).
pub fn run(_args: Args) -> ExitCode {
    let started = transport::spawn_reader(BufReader::with_capacity(1 << 16, std::io::stdin()))
        .and_then(|(incoming, reader)| {
            let (out, writer) = transport::spawn_writer(BufWriter::new(std::io::stdout()))?;
            Ok((incoming, reader, out, writer))
        });
    let (incoming, _reader, out, writer) = match started {
        Ok(t) => t,
        Err(e) => {
            eprintln!("gdlc lsp: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let (events_tx, events) = crossbeam_channel::unbounded();
    let jobs = match spawn_analyser(events_tx.clone()) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("gdlc lsp: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut server = Server {
        out,
        events: events_tx,
        jobs,
        docs: HashMap::new(),
        running: HashMap::new(),
        phase: Phase::Uninitialized,
    };
    let clean = server.serve(&incoming, &events);
    // The reader may be blocked on standard input, and a command's thread may still run: they
    // end with the process. The writer writes (and flushes) what was sent before; it is given
    // a moment to finish.
    drop(server);
    let deadline = Instant::now() + std::time::Duration::from_secs(1);
    while !writer.is_finished() && Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    if clean {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The stack of the threads that check and answer: a margin for the analyses of a description
/// under [`document::MAX_CHECKED_BYTES`] (half a million rules), though the deepest walk,
/// strongly connected components, no longer recurses (`gdl_interp::scc`). Reserved, not
/// committed, memory.
const WORKER_STACK: usize = 512 << 20;

/// Where the conversation is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Uninitialized,
    Running,
    ShutDown,
}

/// What the analysis thread and the request threads tell the main loop.
enum Event {
    Analysed(Arc<Snapshot>),
    /// A request's answer, sent unless the request was cancelled meanwhile.
    Answered(Response),
    /// A validation's diagnostics, kept unless its request was cancelled meanwhile.
    Validated {
        id: RequestId,
        uri: Uri,
        version: i32,
        diagnostics: Vec<lsp_types::Diagnostic>,
    },
}

/// A document to analyse.
struct Job {
    uri: Uri,
    version: i32,
    text: Arc<str>,
}

/// An open document.
struct Doc {
    version: i32,
    text: Arc<str>,
    /// The analysis of `version`, once made.
    snapshot: Option<Arc<Snapshot>>,
    /// Requests that wait for it.
    waiting: Vec<Request>,
    /// The last validation's diagnostics, while the document has the version validated.
    validated: Option<(i32, Vec<lsp_types::Diagnostic>)>,
}

struct Server {
    out: Sender<Message>,
    events: Sender<Event>,
    jobs: Sender<Job>,
    docs: HashMap<Uri, Doc>,
    /// The requests being answered on their threads, with the flag that stops a validation
    /// when the request is cancelled.
    running: HashMap<RequestId, Arc<AtomicBool>>,
    phase: Phase,
}

impl Server {
    /// The main loop; whether it ended with `exit` after `shutdown`.
    fn serve(&mut self, incoming: &Receiver<Vec<Incoming>>, events: &Receiver<Event>) -> bool {
        loop {
            select! {
                recv(incoming) -> batch => match batch {
                    Ok(mut batch) => {
                        // With the batches read meanwhile, for the cancels among them.
                        while batch.len() < transport::MAX_BATCH
                            && let Ok(more) = incoming.try_recv()
                        {
                            batch.extend(more);
                        }
                        if self.on_batch(batch) {
                            return self.phase == Phase::ShutDown;
                        }
                    }
                    Err(_) => {
                        tracing::info!("gdlc lsp: the client closed standard input");
                        return false;
                    }
                },
                recv(events) -> event => {
                    if let Ok(event) = event {
                        self.on_event(event);
                    }
                }
            }
        }
    }

    fn send(&self, message: impl Into<Message>) {
        // The writer ends only when the output fails; then nothing more can be said.
        let _ = self.out.send(message.into());
    }

    fn reply_error(&self, id: RequestId, code: ErrorCode, message: impl Into<String>) {
        self.send(Response::new_err(id, code as i32, message.into()));
    }

    /// A message that could not be read: an error reply when it had an id, else a line in the
    /// client's log (and ours, with `GDLC_LOG=warn`).
    fn on_malformed(&self, why: String, id: Option<RequestId>) {
        tracing::warn!("gdlc lsp: {why}");
        match id {
            Some(id) => self.reply_error(id, ErrorCode::ParseError, why),
            None => self.log(lsp_types::MessageType::WARNING, format!("gdlc lsp: {why}")),
        }
    }

    /// A line in the client's log (`window/logMessage`).
    fn log(&self, typ: lsp_types::MessageType, message: String) {
        let params = lsp_types::LogMessageParams { typ, message };
        let method = lsp_types::notification::LogMessage::METHOD.to_string();
        self.send(Notification::new(method, params));
    }

    /// Handles messages in order, a request that a later one cancels answered
    /// `RequestCancelled`; true when the server is to exit.
    fn on_batch(&mut self, batch: Vec<Incoming>) -> bool {
        let mut cancelled = cancel::cancelled_later(&batch);
        for (i, item) in batch.into_iter().enumerate() {
            match item {
                Incoming::Message(Message::Request(r))
                    if self.phase == Phase::Running
                        && requests::METHODS.contains(&r.method.as_str())
                        && cancelled.get(&r.id).is_some_and(|&at| at > i) =>
                {
                    cancelled.remove(&r.id);
                    self.reply_cancelled(r.id);
                }
                Incoming::Message(message) => {
                    if self.on_message(message) {
                        return true;
                    }
                }
                Incoming::Malformed { why, id } => self.on_malformed(why, id),
            }
        }
        false
    }

    fn reply_cancelled(&self, id: RequestId) {
        tracing::debug!("gdlc lsp: request {id} cancelled");
        let message = "the request was cancelled";
        self.reply_error(id, ErrorCode::RequestCanceled, message);
    }

    /// `$/cancelRequest`: a request waiting for its document's analysis, or being answered, is
    /// answered `RequestCancelled` (a running one's answer is dropped when it comes); any other
    /// id is left alone.
    fn on_cancel(&mut self, n: Notification) {
        let id = match cancel::cancelled_id(&n.params) {
            Ok(id) => id,
            Err(why) => return tracing::warn!("gdlc lsp: malformed $/cancelRequest: {why}"),
        };
        let found = self.docs.values_mut().find_map(|doc| {
            let i = doc.waiting.iter().position(|r| r.id == id)?;
            Some(doc.waiting.remove(i))
        });
        match found {
            Some(request) => self.reply_cancelled(request.id),
            None => match self.running.remove(&id) {
                Some(cancel) => {
                    cancel.store(true, Ordering::Relaxed);
                    self.reply_cancelled(id);
                }
                None => tracing::debug!("gdlc lsp: cancel of {id}, neither queued nor running"),
            },
        }
    }

    /// Handles one message; true when the server is to exit.
    fn on_message(&mut self, message: Message) -> bool {
        match message {
            Message::Request(request) => self.on_request(request),
            Message::Notification(n) if n.method == "exit" => return true,
            Message::Notification(n) => {
                if self.phase == Phase::Running {
                    let method = n.method.clone();
                    let handled = catch_unwind(AssertUnwindSafe(|| self.on_notification(n)));
                    if handled.is_err() {
                        tracing::error!("gdlc lsp: failed on the notification {method}");
                    }
                }
            }
            Message::Response(_) => {}
        }
        false
    }

    fn on_request(&mut self, request: Request) {
        match (self.phase, request.method.as_str()) {
            (Phase::Uninitialized, "initialize") => {
                self.phase = Phase::Running;
                self.send(Response::new_ok(request.id, initialize_result()));
            }
            (Phase::Uninitialized, _) => self.reply_error(
                request.id,
                ErrorCode::ServerNotInitialized,
                "the server is not initialized yet",
            ),
            (Phase::ShutDown, _) => self.reply_error(
                request.id,
                ErrorCode::InvalidRequest,
                "the server is shutting down",
            ),
            (Phase::Running, "initialize") => self.reply_error(
                request.id,
                ErrorCode::InvalidRequest,
                "the server is initialized already",
            ),
            (Phase::Running, "shutdown") => {
                self.phase = Phase::ShutDown;
                self.send(Response::new_ok(request.id, serde_json::Value::Null));
            }
            (Phase::Running, method) if requests::METHODS.contains(&method) => {
                self.on_document_request(request);
            }
            (Phase::Running, method) => {
                let message = format!("unknown method `{method}`");
                self.reply_error(request.id, ErrorCode::MethodNotFound, message);
            }
        }
    }

    /// A request about a document: answered once the document's current version is analysed.
    fn on_document_request(&mut self, request: Request) {
        let Some(uri) = requests::document_of(&request) else {
            let message = "the request names no document (a `textDocument.uri` or a URI as \
                           the command's first argument)";
            return self.reply_error(request.id, ErrorCode::InvalidParams, message);
        };
        let Some(doc) = self.docs.get_mut(&uri) else {
            let message = format!("`{}` is not an open document", uri.as_str());
            return self.reply_error(request.id, ErrorCode::InvalidParams, message);
        };
        match &doc.snapshot {
            Some(s) if s.version == doc.version => {
                let s = Arc::clone(s);
                self.spawn_answer(s, request);
            }
            _ => doc.waiting.push(request),
        }
    }

    /// Answers `request` from `snapshot` on a thread of its own; the answer comes back as an
    /// event.
    fn spawn_answer(&mut self, snapshot: Arc<Snapshot>, request: Request) {
        let events = self.events.clone();
        let request_id = request.id.clone();
        let cancel = Arc::new(AtomicBool::new(false));
        self.running.insert(request_id.clone(), Arc::clone(&cancel));
        let spawned = std::thread::Builder::new()
            .name("lsp-request".to_string())
            .stack_size(WORKER_STACK)
            .spawn(move || {
                let id = request.id.clone();
                let (response, validated) = requests::answer(&snapshot, request, &cancel);
                if let Some(diagnostics) = validated {
                    let _ = events.send(Event::Validated {
                        id,
                        uri: snapshot.uri.clone(),
                        version: snapshot.version,
                        diagnostics,
                    });
                }
                let _ = events.send(Event::Answered(response));
            });
        if let Err(e) = spawned {
            tracing::error!("gdlc lsp: cannot start a thread: {e}");
            self.running.remove(&request_id);
            self.send(requests::internal_error(request_id));
        }
    }

    fn on_notification(&mut self, n: Notification) {
        match n.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(p) =
                    n.extract::<lsp_types::DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD)
                else {
                    return tracing::warn!("gdlc lsp: malformed didOpen");
                };
                let doc = p.text_document;
                // Opened again: the requests that waited wait for the new text.
                let waiting = self.docs.remove(&doc.uri).map(|d| d.waiting);
                self.docs.insert(
                    doc.uri.clone(),
                    Doc {
                        version: doc.version,
                        text: Arc::from(doc.text),
                        snapshot: None,
                        waiting: waiting.unwrap_or_default(),
                        validated: None,
                    },
                );
                self.schedule(&doc.uri);
            }
            DidChangeTextDocument::METHOD => {
                let Ok(p) = n.extract::<lsp_types::DidChangeTextDocumentParams>(
                    DidChangeTextDocument::METHOD,
                ) else {
                    return tracing::warn!("gdlc lsp: malformed didChange");
                };
                let uri = p.text_document.uri;
                let Some(doc) = self.docs.get_mut(&uri) else {
                    return tracing::warn!("gdlc lsp: didChange of a document not open");
                };
                let mut text = doc.text.to_string();
                for change in p.content_changes {
                    match change.range {
                        Some(range) => {
                            let lines = document::Lines::new(&text);
                            let start = lines.offset(&text, range.start) as usize;
                            let end = (lines.offset(&text, range.end) as usize).max(start);
                            text.replace_range(start..end, &change.text);
                        }
                        None => text = change.text,
                    }
                }
                doc.text = Arc::from(text);
                doc.version = p.text_document.version;
                doc.validated = None;
                self.schedule(&uri);
            }
            DidCloseTextDocument::METHOD => {
                let Ok(p) = n
                    .extract::<lsp_types::DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD)
                else {
                    return tracing::warn!("gdlc lsp: malformed didClose");
                };
                let uri = p.text_document.uri;
                if let Some(doc) = self.docs.remove(&uri) {
                    for request in doc.waiting {
                        self.reply_error(
                            request.id,
                            ErrorCode::ContentModified,
                            "the document was closed",
                        );
                    }
                }
                self.publish(uri, Vec::new(), None);
            }
            cancel::METHOD => self.on_cancel(n),
            // `initialized`, `didSave`, `$/setTrace`, ...: nothing to do.
            _ => {}
        }
    }

    /// Hands the current version of a document to the analysis thread.
    fn schedule(&self, uri: &Uri) {
        if let Some(doc) = self.docs.get(uri) {
            let job = Job {
                uri: uri.clone(),
                version: doc.version,
                text: Arc::clone(&doc.text),
            };
            if self.jobs.send(job).is_err() {
                tracing::error!("gdlc lsp: the analysis thread is gone");
            }
        }
    }

    fn on_event(&mut self, event: Event) {
        match event {
            Event::Answered(response) => {
                if self.running.remove(&response.id).is_some() {
                    self.send(response);
                } else {
                    tracing::debug!("gdlc lsp: dropped the answer to {}", response.id);
                }
            }
            Event::Analysed(snapshot) => {
                let Some(doc) = self.docs.get_mut(&snapshot.uri) else {
                    return;
                };
                if doc.version != snapshot.version {
                    tracing::debug!("gdlc lsp: dropped the analysis of a stale version");
                    return;
                }
                doc.snapshot = Some(Arc::clone(&snapshot));
                let waiting = std::mem::take(&mut doc.waiting);
                let validated = doc.validated.clone();
                self.publish_snapshot(&snapshot, validated);
                for request in waiting {
                    self.spawn_answer(Arc::clone(&snapshot), request);
                }
            }
            Event::Validated {
                id,
                uri,
                version,
                diagnostics,
            } => {
                if !self.running.contains_key(&id) {
                    return;
                }
                let Some(doc) = self.docs.get_mut(&uri) else {
                    return;
                };
                if doc.version != version {
                    return;
                }
                doc.validated = Some((version, diagnostics));
                let validated = doc.validated.clone();
                if let Some(s) = doc.snapshot.clone() {
                    self.publish_snapshot(&s, validated);
                }
            }
        }
    }

    /// Publishes a snapshot's diagnostics, with the validation's of the same version.
    fn publish_snapshot(&self, s: &Snapshot, validated: Option<(i32, Vec<lsp_types::Diagnostic>)>) {
        let mut all = diagnostics::published(s);
        if let Some((version, more)) = validated
            && version == s.version
        {
            all.extend(more);
        }
        self.publish(s.uri.clone(), all, Some(s.version));
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.send(Notification::new(
            PublishDiagnostics::METHOD.to_string(),
            params,
        ));
    }
}

/// The analysis thread: takes the jobs queued so far, keeps the latest of each document, and
/// sends their snapshots back. An analysis that panics is logged and gives an empty snapshot.
fn spawn_analyser(events: Sender<Event>) -> std::io::Result<Sender<Job>> {
    let (tx, rx) = crossbeam_channel::unbounded::<Job>();
    std::thread::Builder::new()
        .name("lsp-analysis".to_string())
        .stack_size(WORKER_STACK)
        .spawn(move || {
            while let Ok(first) = rx.recv() {
                let mut latest: Vec<Job> = Vec::new();
                for job in std::iter::once(first).chain(rx.try_iter()) {
                    latest.retain(|j| j.uri != job.uri);
                    latest.push(job);
                }
                for job in latest {
                    let started = Instant::now();
                    let (uri, version, text) =
                        (job.uri.clone(), job.version, Arc::clone(&job.text));
                    let snapshot = catch_unwind(AssertUnwindSafe(|| {
                        document::analyse(job.uri, job.version, job.text)
                    }))
                    .unwrap_or_else(|_| {
                        tracing::error!("gdlc lsp: the analysis of {} failed", uri.as_str());
                        document::failed(uri, version, text)
                    });
                    tracing::debug!(
                        "gdlc lsp: analysed {} version {} in {:.1} ms",
                        snapshot.name,
                        snapshot.version,
                        started.elapsed().as_secs_f64() * 1e3
                    );
                    if events.send(Event::Analysed(Arc::new(snapshot))).is_err() {
                        return;
                    }
                }
            }
        })?;
    Ok(tx)
}

/// What the server can do.
fn initialize_result() -> InitializeResult {
    let capabilities = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["(".to_string(), "?".to_string()]),
            ..CompletionOptions::default()
        }),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_range_formatting_provider: Some(OneOf::Left(true)),
        document_on_type_formatting_provider: Some(DocumentOnTypeFormattingOptions {
            first_trigger_character: "\n".to_string(),
            more_trigger_character: None,
        }),
        semantic_tokens_provider: Some(
            SemanticTokensOptions {
                legend: tokens::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                work_done_progress_options: Default::default(),
            }
            .into(),
        ),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: commands::ALL.iter().map(|c| c.to_string()).collect(),
            work_done_progress_options: Default::default(),
        }),
        ..ServerCapabilities::default()
    };
    InitializeResult {
        capabilities,
        server_info: Some(ServerInfo {
            name: "gdlc".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    }
}
