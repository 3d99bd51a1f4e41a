//! The HTTP player (feature `http`): a GGP player served with tokio and hyper.
//!
//! Requests are answered as `protocol.md` says real managers expect: POST (the message is the
//! body), GET (the message is the URL-decoded path), OPTIONS (an empty reply with the CORS
//! headers); every reply `200 OK` with `Content-Type: text/acl`, a byte-accurate
//! `Content-Length`, the CORS headers, ASCII, and the connection closed after it.
//!
//! One match at a time is played on a thread of its own, the *match thread*, which owns the
//! [`MatchEngine`] (so the game need not be `Send` or `Sync`: the interpreter is neither).
//! INFO, ABORT and messages about other matches are answered by the server at once, also while
//! a move is being computed; a message that cannot be read gets a reply that says why, and a
//! log line. The clocks of START and PLAY start when the request arrives.

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::{Method, Request, Response};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::Game;
use crate::player::Player;
use crate::protocol::{self, Message, reply};

/// What a match needs from the match thread: the engine of one match, made at START.
pub trait MatchEngine {
    /// Which engine plays (for INFO and the log), e.g. `compiled` or `interpreted`.
    fn describe(&self) -> String;
    /// PLAY: the last joint move (`None` at the first PLAY), and the move to play, chosen
    /// before `deadline`; an error when the moves are not legal in this game.
    fn play(&mut self, moves: Option<&[String]>, deadline: Instant) -> Result<String, String>;
}

/// Makes the engine of a match at START (`Err`: the player will not play it, and answers
/// `busy`, e.g. rules other than the ones it was built for).
pub type EngineFactory =
    Box<dyn FnMut(&StartRequest) -> Result<Box<dyn MatchEngine>, String> + Send>;

/// A START, as the factory sees it.
#[derive(Clone, Debug)]
pub struct StartRequest {
    pub match_id: String,
    pub role: String,
    pub rules: String,
    pub start_clock: Duration,
    pub play_clock: Duration,
    /// When the START arrived; the start clock runs from here.
    pub arrived: Instant,
    /// The safety margin the player keeps before each deadline.
    pub margin: Duration,
}

/// Settings of the server.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// The name INFO gives.
    pub name: String,
    /// A move is sent this long before the play clock ends.
    pub margin: Duration,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            name: "gdlc".to_string(),
            margin: Duration::from_millis(1500),
        }
    }
}

/// A job for the match thread.
enum Job {
    Start(StartRequest, oneshot::Sender<String>),
    Play {
        moves: Option<Vec<String>>,
        deadline: Instant,
        reply: oneshot::Sender<String>,
    },
    /// The match ended (STOP or ABORT): drop its engine.
    End,
}

/// What the server knows without asking the match thread.
#[derive(Default)]
struct Current {
    match_id: Option<String>,
    play_clock: Duration,
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
    std::thread::Builder::new()
        .name("match".into())
        .spawn(move || match_thread(factory, queue))?;
    let shared = Arc::new(Shared {
        options,
        current: Mutex::new(Current::default()),
        jobs,
    });
    loop {
        let (stream, peer) = listener.accept().await?;
        let shared = shared.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |req| {
                let shared = shared.clone();
                async move { Ok::<_, Infallible>(answer(&shared, req).await) }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            if let Err(e) = hyper::server::conn::http1::Builder::new()
                .keep_alive(false)
                .serve_connection(io, service)
                .await
            {
                tracing_log(&format!("connection from {peer}: {e}"));
            }
        });
    }
}

/// The log line of the server (standard error).
fn tracing_log(line: &str) {
    eprintln!("[player] {line}");
}

/// The match thread: runs the jobs in order.
fn match_thread(mut factory: EngineFactory, queue: std::sync::mpsc::Receiver<Job>) {
    let mut engine: Option<Box<dyn MatchEngine>> = None;
    for job in queue {
        match job {
            Job::Start(start, reply_to) => {
                let answer = match factory(&start) {
                    Ok(e) => {
                        engine = Some(e);
                        reply::READY.to_string()
                    }
                    Err(why) => {
                        tracing_log(&format!("START {}: {why}", start.match_id));
                        engine = None;
                        reply::BUSY.to_string()
                    }
                };
                let _ = reply_to.send(answer);
            }
            Job::Play {
                moves,
                deadline,
                reply,
            } => {
                let answer = match engine.as_mut() {
                    Some(e) => match e.play(moves.as_deref(), deadline) {
                        Ok(m) => m,
                        Err(why) => {
                            tracing_log(&format!("PLAY: {why}"));
                            // Still a move: the manager would substitute a random one.
                            "nil".to_string()
                        }
                    },
                    None => reply::BUSY.to_string(),
                };
                let _ = reply.send(answer);
            }
            Job::End => engine = None,
        }
    }
}

/// The reply to one HTTP request.
async fn answer(shared: &Shared, req: Request<Incoming>) -> Response<Full<Bytes>> {
    let arrived = Instant::now();
    let text = match *req.method() {
        Method::OPTIONS => return respond(String::new()),
        Method::GET => url_decode(req.uri().path().trim_start_matches('/')),
        _ => match req.into_body().collect().await {
            Ok(body) => String::from_utf8_lossy(&body.to_bytes()).into_owned(),
            Err(e) => return respond(format!("error: cannot read the request: {e}")),
        },
    };
    let body = match protocol::parse(&text) {
        Ok(message) => handle(shared, message, arrived).await,
        Err(e) => {
            let short: String = text.chars().take(80).collect();
            tracing_log(&format!("cannot read {short:?}: {e}"));
            format!("error: {e}")
        }
    };
    respond(body)
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
            reply::info(&shared.options.name, c.match_id.is_some())
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
                c.play_clock = Duration::from_secs_f64(play_clock);
            }
            let start = StartRequest {
                match_id: match_id.clone(),
                role,
                rules,
                start_clock: Duration::from_secs_f64(start_clock),
                play_clock: Duration::from_secs_f64(play_clock),
                arrived,
                margin,
            };
            let (tx, rx) = oneshot::channel();
            let answer = match shared.jobs.send(Job::Start(start, tx)) {
                Ok(()) => rx.await.unwrap_or_else(|_| reply::BUSY.to_string()),
                Err(_) => reply::BUSY.to_string(),
            };
            if answer != reply::READY {
                let mut c = shared.current.lock().unwrap_or_else(|e| e.into_inner());
                c.match_id = None;
            }
            tracing_log(&format!("START {match_id}: {answer}"));
            answer
        }
        Message::Play { match_id, moves } => {
            if !ours(&match_id) {
                return reply::BUSY.to_string();
            }
            let play_clock = {
                let c = shared.current.lock().unwrap_or_else(|e| e.into_inner());
                c.play_clock
            };
            let deadline = arrived + play_clock.saturating_sub(margin);
            let (tx, rx) = oneshot::channel();
            let job = Job::Play {
                moves,
                deadline,
                reply: tx,
            };
            match shared.jobs.send(job) {
                Ok(()) => rx.await.unwrap_or_else(|_| reply::BUSY.to_string()),
                Err(_) => reply::BUSY.to_string(),
            }
        }
        Message::PlayPercepts { .. } => "error: GDL-II matches are not played yet".to_string(),
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

fn end_match(shared: &Shared) {
    let mut c = shared.current.lock().unwrap_or_else(|e| e.into_inner());
    c.match_id = None;
    let _ = shared.jobs.send(Job::End);
}

/// The headers of every reply: the content type and the CORS headers.
const HEADERS: [(&str, &str); 5] = [
    ("Content-Type", "text/acl"),
    ("Access-Control-Allow-Origin", "*"),
    ("Access-Control-Allow-Methods", "POST, GET, OPTIONS"),
    ("Access-Control-Allow-Headers", "Content-Type"),
    ("Access-Control-Allow-Age", "86400"),
];

/// A `200 OK` with the protocol's headers.
fn respond(body: String) -> Response<Full<Bytes>> {
    // Replies are ASCII.
    let body: String = body
        .chars()
        .map(|c| if c.is_ascii() { c } else { '?' })
        .collect();
    let mut r = Response::new(Full::new(Bytes::from(body)));
    for (name, value) in HEADERS {
        r.headers_mut()
            .insert(name, hyper::header::HeaderValue::from_static(value));
    }
    r
}

/// `%28+INFO+%29` -> `( INFO )`.
fn url_decode(path: &str) -> String {
    let b = path.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                match std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Why a message to a player got no reply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SendError {
    /// No connection (`CE` in a match record).
    Connect(String),
    /// No reply in time (`TO`).
    Timeout,
    /// The connection broke, or the reply was not HTTP (`TO`: the manager got no move).
    Broken(String),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::Connect(e) => write!(f, "cannot connect: {e}"),
            SendError::Timeout => write!(f, "no reply in time"),
            SendError::Broken(e) => write!(f, "no reply: {e}"),
        }
    }
}

/// Sends `message` to the player at `address` (`host:port`) as game managers do (`POST /`,
/// `text/acl`) and returns the reply's body, trimmed; gives up after `timeout`.
pub async fn send(address: &str, message: &str, timeout: Duration) -> Result<String, SendError> {
    let exchange = async {
        let stream = tokio::net::TcpStream::connect(address)
            .await
            .map_err(|e| SendError::Connect(e.to_string()))?;
        let io = hyper_util::rt::TokioIo::new(stream);
        let (mut sender, connection) = hyper::client::conn::http1::handshake(io)
            .await
            .map_err(|e| SendError::Broken(e.to_string()))?;
        tokio::spawn(connection);
        let request = Request::builder()
            .method(Method::POST)
            .uri("/")
            .header("Host", address)
            .header("Accept", "text/delim")
            .header("Sender", "GAMESERVER")
            .header("Content-Type", "text/acl")
            .body(Full::new(Bytes::from(message.to_string())))
            .map_err(|e| SendError::Broken(e.to_string()))?;
        let response = sender
            .send_request(request)
            .await
            .map_err(|e| SendError::Broken(e.to_string()))?;
        let body = response
            .into_body()
            .collect()
            .await
            .map_err(|e| SendError::Broken(e.to_string()))?
            .to_bytes();
        Ok(String::from_utf8_lossy(&body).trim().to_string())
    };
    match tokio::time::timeout(timeout, exchange).await {
        Ok(r) => r,
        Err(_) => Err(SendError::Timeout),
    }
}

/// The engine of a match of one game `G` with one player: the moves of PLAY are read with
/// [`Game::parse_move`] and applied; the player chooses the next move.
pub struct GameEngine<G: Game, P: Player<G>> {
    game: G,
    player: P,
    role: usize,
    state: G::State,
    next: G::State,
    describe: String,
}

impl<G: Game, P: Player<G>> GameEngine<G, P> {
    /// Prepares `player` to play `start.role` of `game`, searching until the start clock ends
    /// (less the margin). `Err` when the game has no such role.
    pub fn new(
        game: G,
        mut player: P,
        start: &StartRequest,
        describe: &str,
    ) -> Result<Self, String> {
        let role = (0..game.role_count())
            .find(|&r| game.role_name(r).eq_ignore_ascii_case(&start.role))
            .ok_or_else(|| format!("the game has no role `{}`", start.role))?;
        let deadline = start.arrived + start.start_clock.saturating_sub(start.margin);
        player.start(&game, role, deadline);
        let state = game.initial_state();
        Ok(GameEngine {
            next: state.clone(),
            state,
            game,
            player,
            role,
            describe: describe.to_string(),
        })
    }
}

impl<G: Game, P: Player<G>> MatchEngine for GameEngine<G, P> {
    fn describe(&self) -> String {
        self.describe.clone()
    }

    fn play(&mut self, moves: Option<&[String]>, deadline: Instant) -> Result<String, String> {
        if let Some(moves) = moves {
            if moves.len() != self.game.role_count() {
                return Err(format!(
                    "{} moves for {} roles",
                    moves.len(),
                    self.game.role_count()
                ));
            }
            let joint: Option<Vec<G::Move>> = moves
                .iter()
                .enumerate()
                .map(|(r, m)| self.game.parse_move(r, m))
                .collect();
            let joint = joint.ok_or_else(|| format!("a move of {moves:?} is not of this game"))?;
            self.game.next_state(&self.state, &joint, &mut self.next);
            self.player.observe(&self.game, &joint, &self.next);
            std::mem::swap(&mut self.state, &mut self.next);
        }
        match self.player.choose(&self.game, &self.state, deadline) {
            Some(m) => Ok(self.game.move_text(self.role, m)),
            None => Err("no legal move".to_string()),
        }
    }
}

mod binary;
pub use binary::{PLAY_USAGE, main_with_player, rule_set};

#[cfg(test)]
mod tests;
