//! The HTTP player (feature `http`): a GGP player served with tokio and hyper.
//!
//! Requests are answered as `protocol.md` says real managers expect: POST (the message is the
//! body), GET (the message is the URL-decoded path), OPTIONS (an empty reply with the CORS
//! headers); every reply `HTTP/1.0 200 OK` (also to an HTTP/1.1 request) with
//! `Content-Type: text/acl`, a byte-accurate `Content-Length`, the CORS headers, ASCII, and the
//! connection closed after it. A POST without `Content-Length` has its body read to the end of
//! the stream (module `wire`, before hyper sees the request); bodies are bounded in size and
//! time ([`ServerOptions::max_body`], [`ServerOptions::read_timeout`]).
//!
//! One match at a time is played on a thread of its own, the *match thread* (module
//! `match_thread`), which owns the [`MatchEngine`] (so the game need not be `Send` or `Sync`:
//! the interpreter is neither) and logs each PLAY with the engine, its search statistics and
//! the time used; between requests it ponders ([`MatchEngine::ponder`], unless
//! [`ServerOptions::ponder`] is off). INFO (which names the engine that answered the last PLAY
//! while in a match, the one START made before it), ABORT and messages about other matches
//! are answered by the server at once, also while a move is being computed; a message that
//! cannot be read gets a reply that says why, and a log line. The clocks of START and PLAY
//! start when the connection is accepted. A PLAY with percepts (GDL-II) goes to
//! [`MatchEngine::play_percepts`]. With [`ServerOptions::case_fold`] the rules, role and moves
//! are lower-cased first (module `fold`).

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::protocol::{self, Message, reply};

mod binary;
mod client;
mod engine;
mod fold;
mod match_thread;
mod wire;

pub use binary::{PLAY_USAGE, main_with_player, rule_set};
pub use client::{SendError, send};
pub use engine::{EngineFactory, GameEngine, MatchEngine, StartRequest, fallback_move};
pub use fold::folding_merges;
pub use wire::ReadError;

pub use crate::subprocess::Ponder;
use crate::time_control::{DEFAULT_MARGIN, Deadlines, FALLBACK_AFTER_CLOCK, clock};

use match_thread::{Job, Played, Turn};
use wire::{Bounds, Prefixed, respond, url_decode};

/// Settings of the server.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// The name INFO gives.
    pub name: String,
    /// A move is sent this long before the play clock ends (from the PLAY's arrival); START
    /// keeps [`crate::time_control::START_EXTRA_MARGIN`] more, as managers give no grace
    /// there. The default, [`DEFAULT_MARGIN`], is for a manager on the same host.
    pub margin: Duration,
    /// The longest request body read (bytes); a longer one gets an error reply.
    pub max_body: usize,
    /// The time a request has to arrive (head and body); a POST without `Content-Length`
    /// whose client does not close its side by then has what arrived as its body.
    pub read_timeout: Duration,
    /// Lower-case the rules, the role and the moves of a match before use (for managers that
    /// upper-case the whole message, like Dresden's); see module `fold`.
    pub case_fold: bool,
    /// Whether the match thread searches on the opponents' time, between requests.
    pub ponder: Ponder,
}

/// How often a PLAY past [`FALLBACK_AFTER_CLOCK`] looks for the fallback of an engine still
/// busy with an earlier PLAY.
const FALLBACK_POLL: Duration = Duration::from_millis(10);

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            name: "gdlc".to_string(),
            margin: DEFAULT_MARGIN,
            max_body: 16 << 20,
            read_timeout: Duration::from_secs(10),
            case_fold: false,
            ponder: Ponder::On,
        }
    }
}

/// What the server knows without asking the match thread.
#[derive(Default)]
struct Current {
    match_id: Option<String>,
    play_clock: Duration,
    /// Which engine plays it: the one START made, then the one that answered the last PLAY.
    engine: Option<String>,
}

struct Shared {
    options: ServerOptions,
    current: Mutex<Current>,
    jobs: std::sync::mpsc::Sender<Job>,
}

/// The tokio runtime of a player or a manager: two worker threads (the search runs on the
/// match thread, not on them).
pub fn runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
}

/// Listens on `address` (`host:port`; port 0 picks a free one), says where on standard error
/// (`<who>: <name> listening on <addr>`), and serves the player until the process ends.
/// Errors are printed as `<who>: ...`.
pub fn serve_on(
    who: &str,
    address: &str,
    options: ServerOptions,
    factory: EngineFactory,
) -> std::process::ExitCode {
    use std::process::ExitCode;
    let runtime = match runtime() {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{who}: cannot start: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let listener = match TcpListener::bind(address).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("{who}: cannot listen on {address}: {e}");
                return ExitCode::FAILURE;
            }
        };
        if let Ok(a) = listener.local_addr() {
            eprintln!("{who}: {} listening on {a}", options.name);
        }
        match serve(listener, options, factory).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{who}: {e}");
                ExitCode::FAILURE
            }
        }
    })
}

/// Serves the player on `listener` until the task is dropped.
pub async fn serve(
    listener: TcpListener,
    options: ServerOptions,
    factory: EngineFactory,
) -> std::io::Result<()> {
    let (jobs, queue) = std::sync::mpsc::channel::<Job>();
    let ponder = options.ponder;
    std::thread::Builder::new()
        .name("match".into())
        .spawn(move || match_thread::run(factory, queue, ponder))?;
    let shared = Arc::new(Shared {
        options,
        current: Mutex::new(Current::default()),
        jobs,
    });
    loop {
        let (stream, peer) = listener.accept().await?;
        let shared = shared.clone();
        tokio::spawn(async move { connection(shared, stream, peer).await });
    }
}

/// Serves one connection: one request, one reply.
async fn connection(shared: Arc<Shared>, mut stream: tokio::net::TcpStream, peer: SocketAddr) {
    // The clocks of START and PLAY run from here.
    let arrived = Instant::now();
    let bounds = Bounds {
        max_body: shared.options.max_body,
        time: shared.options.read_timeout,
    };
    let prepared = match wire::prepare(&mut stream, bounds).await {
        Ok(p) => p,
        Err(e) => {
            log(&format!("connection from {peer}: {e}"));
            return;
        }
    };
    let problem = prepared.problem;
    let service = hyper::service::service_fn(move |req| {
        let shared = shared.clone();
        let problem = problem.clone();
        async move {
            let reply = match problem {
                Some(e) => {
                    log(&format!("request from {peer}: {e}"));
                    respond(format!("error: {e}"))
                }
                None => answer(&shared, req, arrived).await,
            };
            Ok::<_, Infallible>(reply)
        }
    });
    let io = hyper_util::rt::TokioIo::new(Prefixed::new(prepared.prefix, stream));
    if let Err(e) = hyper::server::conn::http1::Builder::new()
        .keep_alive(false)
        // A client may close its side once it has sent the request (it must, for a body
        // without length), and still read the reply.
        .half_close(true)
        .serve_connection(io, service)
        .await
    {
        log(&format!("connection from {peer}: {e}"));
    }
}

/// The log line of the server (standard error).
fn log(line: &str) {
    eprintln!("[player] {line}");
}

/// The reply to one HTTP request.
async fn answer(
    shared: &Shared,
    req: Request<Incoming>,
    arrived: Instant,
) -> Response<Full<Bytes>> {
    let text = match *req.method() {
        Method::OPTIONS => return respond(String::new()),
        Method::GET => url_decode(req.uri().path().trim_start_matches('/')),
        _ => match read_body(&shared.options, req.into_body()).await {
            Ok(body) => String::from_utf8_lossy(&body).into_owned(),
            Err(e) => {
                log(&e.to_string());
                return respond(format!("error: {e}"));
            }
        },
    };
    let body = match protocol::parse(&text) {
        Ok(message) => handle(shared, message, arrived).await,
        Err(e) => {
            let short: String = text.chars().take(80).collect();
            log(&format!("cannot read {short:?}: {e}"));
            format!("error: {e}")
        }
    };
    respond(body)
}

/// A request's body, within the size and time bounds of `options`.
async fn read_body(options: &ServerOptions, body: Incoming) -> Result<Bytes, ReadError> {
    let limited = Limited::new(body, options.max_body);
    match tokio::time::timeout(options.read_timeout, limited.collect()).await {
        Err(_) => Err(ReadError::Slow(options.read_timeout)),
        Ok(Ok(b)) => Ok(b.to_bytes()),
        Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
            Err(ReadError::TooLarge(options.max_body))
        }
        Ok(Err(e)) => Err(ReadError::Broken(e.to_string())),
    }
}

/// The reply to one message.
async fn handle(shared: &Shared, message: Message, arrived: Instant) -> String {
    let margin = shared.options.margin;
    let ours = |id: &str| {
        let c = shared.current.lock().unwrap_or_else(|e| e.into_inner());
        c.match_id.as_deref() == Some(id)
    };
    match message {
        Message::Info => {
            let c = shared.current.lock().unwrap_or_else(|e| e.into_inner());
            let status = match &c.match_id {
                None => reply::Status::Available,
                Some(_) => reply::Status::Busy {
                    engine: c.engine.as_deref(),
                },
            };
            reply::info(&shared.options.name, status)
        }
        Message::Preview { .. } => reply::READY.to_string(),
        Message::Start {
            match_id,
            role,
            rules,
            start_clock,
            play_clock,
        } => {
            {
                let mut c = shared.current.lock().unwrap_or_else(|e| e.into_inner());
                if c.match_id.is_some() {
                    return reply::BUSY.to_string();
                }
                c.match_id = Some(match_id.clone());
                c.play_clock = clock(play_clock);
            }
            let case_fold = shared.options.case_fold;
            let (role, rules) = match case_fold {
                false => (role, rules),
                true => {
                    if let Some(warning) = fold::merge_warning(&rules) {
                        log(&format!("START {match_id}: {warning}"));
                    }
                    (role.to_ascii_lowercase(), rules.to_ascii_lowercase())
                }
            };
            let start = StartRequest {
                match_id: match_id.clone(),
                role,
                rules,
                start_clock: clock(start_clock),
                play_clock: clock(play_clock),
                deadlines: Deadlines::start(arrived, clock(start_clock), margin),
                case_fold,
            };
            let deadlines = start.deadlines;
            let (tx, rx) = oneshot::channel();
            let made = match shared.jobs.send(Job::Start(start, tx)) {
                Ok(()) => rx
                    .await
                    .unwrap_or_else(|_| Err("the match thread ended".into())),
                Err(_) => Err("the match thread ended".into()),
            };
            let replied = deadlines.replied(Instant::now());
            let mut c = shared.current.lock().unwrap_or_else(|e| e.into_inner());
            match made {
                Ok(engine) => {
                    log(&format!("START {match_id}: ready ({engine}), {replied}"));
                    if c.match_id.as_deref() == Some(&match_id) {
                        c.engine = Some(engine);
                    }
                    reply::READY.to_string()
                }
                Err(why) => {
                    log(&format!("START {match_id}: busy ({why})"));
                    if c.match_id.as_deref() == Some(&match_id) {
                        c.match_id = None;
                    }
                    reply::BUSY.to_string()
                }
            }
        }
        Message::Play { match_id, moves } => {
            let fold = shared.options.case_fold;
            let moves = moves.map(|ms| ms.into_iter().map(|m| folded(fold, m)).collect());
            play(shared, &match_id, Turn::Moves(moves), arrived).await
        }
        Message::PlayPercepts {
            match_id,
            turn,
            last_move,
            percepts,
        } => {
            let fold = shared.options.case_fold;
            let turn = Turn::Percepts {
                turn,
                last_move: last_move.map(|m| folded(fold, m)),
                percepts: percepts.into_iter().map(|p| folded(fold, p)).collect(),
            };
            play(shared, &match_id, turn, arrived).await
        }
        Message::Stop { match_id, .. } => {
            if !ours(&match_id) {
                return reply::BUSY.to_string();
            }
            end_match(shared);
            reply::DONE.to_string()
        }
        Message::Abort { match_id } => {
            if !ours(&match_id) {
                return reply::BUSY.to_string();
            }
            end_match(shared);
            reply::ABORTED.to_string()
        }
    }
}

/// The reply to a PLAY: the move, or `busy` for a match that is not ours.
async fn play(shared: &Shared, match_id: &str, turn: Turn, arrived: Instant) -> String {
    let play_clock = {
        let c = shared.current.lock().unwrap_or_else(|e| e.into_inner());
        if c.match_id.as_deref() != Some(match_id) {
            return reply::BUSY.to_string();
        }
        c.play_clock
    };
    let deadlines = Deadlines::play(arrived, play_clock, shared.options.margin);
    let (tx, rx) = oneshot::channel();
    let fallback = Arc::new(OnceLock::new());
    let job = Job::Play {
        turn,
        deadlines,
        queued: Instant::now(),
        fallback: Arc::clone(&fallback),
        reply: tx,
    };
    if shared.jobs.send(job).is_err() {
        return reply::BUSY.to_string();
    }
    let played = answer_or_fallback(rx, &fallback, deadlines.give_up(), match_id).await;
    if let Some(engine) = played.engine {
        let mut c = shared.current.lock().unwrap_or_else(|e| e.into_inner());
        if c.match_id.as_deref() == Some(match_id) {
            c.engine = Some(engine);
        }
    }
    played.answer
}

/// The match thread's answer; if none has come by `give_up`, the fallback move its engine
/// left, as soon as there is one (the thread may still be busy with an earlier PLAY), or the
/// answer if it comes first.
async fn answer_or_fallback(
    mut answer: oneshot::Receiver<Played>,
    fallback: &OnceLock<String>,
    give_up: Instant,
    match_id: &str,
) -> Played {
    let mut at = tokio::time::Instant::from_std(give_up);
    loop {
        if let Ok(answered) = tokio::time::timeout_at(at, &mut answer).await {
            return answered.unwrap_or_else(|_| Played {
                answer: reply::BUSY.to_string(),
                engine: None,
            });
        }
        if let Some(m) = fallback.get() {
            log(&format!(
                "{match_id}: no move {} ms after the play clock: sent the fallback {m}",
                FALLBACK_AFTER_CLOCK.as_millis()
            ));
            return Played {
                answer: m.clone(),
                engine: None,
            };
        }
        at = tokio::time::Instant::now() + FALLBACK_POLL;
    }
}

/// `text` lower-cased when folding case.
fn folded(fold: bool, text: String) -> String {
    match fold {
        true => text.to_ascii_lowercase(),
        false => text,
    }
}

fn end_match(shared: &Shared) {
    let mut c = shared.current.lock().unwrap_or_else(|e| e.into_inner());
    c.match_id = None;
    c.engine = None;
    let _ = shared.jobs.send(Job::End);
}

#[cfg(test)]
mod tests;
