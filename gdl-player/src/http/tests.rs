//! The server on 127.0.0.1 with the toy game, spoken to in raw HTTP/1.0 as managers do.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::*;
use crate::time_control::START_EXTRA_MARGIN;
use crate::{Mcts, MctsOptions};
use gdl_runtime::toy::Countdown;

/// Starts a server of `Countdown` (10) with MCTS; returns its address.
fn server() -> std::net::SocketAddr {
    server_with(ServerOptions {
        name: "test player".into(),
        margin: Duration::from_millis(900),
        ..ServerOptions::default()
    })
}

/// [`server`] with other options.
fn server_with(options: ServerOptions) -> std::net::SocketAddr {
    serve_in_thread(
        options,
        Box::new(|start: &StartRequest| {
            let e = GameEngine::new(
                Countdown::new(10),
                Mcts::new(MctsOptions::default()),
                start,
                "toy",
            )?;
            Ok(Box::new(e) as Box<dyn MatchEngine>)
        }),
    )
}

/// Serves `factory` on 127.0.0.1 on a thread of its own; returns the address.
fn serve_in_thread(options: ServerOptions, factory: EngineFactory) -> std::net::SocketAddr {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            tx.send(listener.local_addr().expect("addr")).expect("send");
            let _ = serve(listener, options, factory).await;
        });
    });
    rx.recv_timeout(Duration::from_secs(10)).expect("server up")
}

/// Sends raw bytes, reads the whole reply (the server closes the connection).
fn exchange(addr: std::net::SocketAddr, request: &str) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    s.write_all(request.as_bytes()).expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    out
}

fn post(addr: std::net::SocketAddr, message: &str) -> String {
    let raw = exchange(
        addr,
        &format!(
            "POST / HTTP/1.0\r\nAccept: text/delim\r\nSender: GAMESERVER\r\nReceiver: \r\n\
             Content-Type: text/acl\r\nContent-Length: {}\r\n\r\n{message}",
            message.len()
        ),
    );
    body_of(&raw)
}

/// Checks the status line, headers and length; returns the body.
fn body_of(raw: &str) -> String {
    let (head, body) = raw.split_once("\r\n\r\n").expect("a head and a body");
    assert!(head.starts_with("HTTP/1.0 200 OK"), "{head}");
    let lower = head.to_ascii_lowercase();
    assert!(lower.contains("content-type: text/acl"), "{head}");
    assert!(lower.contains("access-control-allow-origin: *"), "{head}");
    let length: usize = lower
        .lines()
        .find_map(|l| l.strip_prefix("content-length: "))
        .and_then(|n| n.trim().parse().ok())
        .expect("content-length");
    assert_eq!(length, body.len(), "{raw}");
    assert!(body.is_ascii());
    body.to_string()
}

#[test]
fn a_match_from_start_to_stop() {
    let addr = server();
    assert_eq!(
        post(addr, "( INFO )"),
        "( ( name test_player ) ( status available ) )"
    );
    let rules = "((role only) (init (count 10)))";
    assert_eq!(
        post(addr, &format!("( START m.1 only {rules} 2 2 )")),
        "ready"
    );
    assert_eq!(
        post(addr, "( info )"),
        "( ( name test_player ) ( status busy ) ( engine toy ) )"
    );
    // Another match while this one runs.
    assert_eq!(
        post(addr, &format!("( START m.2 only {rules} 2 2 )")),
        "busy"
    );
    assert_eq!(post(addr, "( PLAY m.2 NIL )"), "busy");
    let first = post(addr, "( PLAY m.1 NIL )");
    assert!(first == "(minus 1)" || first == "(minus 2)", "{first}");
    let second = post(addr, &format!("( PLAY m.1 ({first}) )"));
    assert!(second.starts_with("(minus"), "{second}");
    assert_eq!(post(addr, &format!("( STOP m.1 ({second}) )")), "done");
    assert!(post(addr, "( INFO )").contains("available"));
}

#[test]
fn abort_and_unknown_matches() {
    let addr = server();
    assert_eq!(post(addr, "( ABORT no.such.match )"), "busy");
    assert_eq!(post(addr, "( STOP no.such.match NIL )"), "busy");
    assert_eq!(post(addr, "( START m only ((role only)) 2 2 )"), "ready");
    assert_eq!(post(addr, "( ABORT m )"), "aborted");
    assert!(post(addr, "( INFO )").contains("available"));
}

#[test]
fn a_start_for_another_game_is_busy() {
    let addr = server();
    assert_eq!(post(addr, "( START m nobody ((role nobody)) 2 2 )"), "busy");
    assert!(post(addr, "( INFO )").contains("available"));
}

#[test]
fn garbage_gets_a_reply_that_says_so() {
    let addr = server();
    let r = post(addr, "(garbage");
    assert!(r.starts_with("error:"), "{r}");
    let r = post(addr, "( FOO )");
    assert!(r.contains("FOO"), "{r}");
}

#[test]
fn get_and_options() {
    let addr = server();
    let raw = exchange(addr, "GET /%28+INFO+%29 HTTP/1.0\r\nHost: x\r\n\r\n");
    assert!(body_of(&raw).contains("available"), "{raw}");
    let raw = exchange(
        addr,
        "OPTIONS / HTTP/1.1\r\nHost: x\r\nOrigin: http://example\r\n\r\n",
    );
    // HTTP/1.0 also to an HTTP/1.1 request.
    assert_eq!(body_of(&raw), "");
}

/// Sends `request`, closes the sending side, reads the reply.
fn exchange_then_close(addr: std::net::SocketAddr, request: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    s.write_all(request).expect("write");
    s.shutdown(std::net::Shutdown::Write).expect("shutdown");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    out
}

#[test]
fn a_post_without_length_is_read_to_the_end() {
    let addr = server();
    // As recorded in captures/misc (10).
    let raw = exchange_then_close(
        addr,
        b"POST / HTTP/1.0\r\nContent-Type: text/acl\r\n\r\n( INFO )",
    );
    assert!(body_of(&raw).contains("available"), "{raw}");
    // HTTP/1.1, bare line feeds, a body in several pieces.
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    s.write_all(b"POST / HTTP/1.1\nHost: x\n\n( IN")
        .expect("write");
    std::thread::sleep(Duration::from_millis(50));
    s.write_all(b"FO )").expect("write");
    s.shutdown(std::net::Shutdown::Write).expect("shutdown");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    assert!(body_of(&out).contains("available"), "{out}");
}

#[test]
fn a_client_that_does_not_close_gets_what_it_sent_answered() {
    let addr = server_with(ServerOptions {
        read_timeout: Duration::from_millis(500),
        ..ServerOptions::default()
    });
    let raw = exchange(addr, "POST / HTTP/1.0\r\n\r\n( INFO )");
    assert!(body_of(&raw).contains("available"), "{raw}");
}

#[test]
fn bodies_are_bounded() {
    let addr = server_with(ServerOptions {
        max_body: 1000,
        ..ServerOptions::default()
    });
    let long = format!("( INFO {} )", "x ".repeat(1000));
    let r = post(addr, &long);
    assert!(r.starts_with("error:") && r.contains("1000"), "{r}");
    let raw = exchange_then_close(addr, format!("POST / HTTP/1.0\r\n\r\n{long}").as_bytes());
    let r = body_of(&raw);
    assert!(r.starts_with("error:") && r.contains("1000"), "{r}");
    // A head that never ends: the connection is closed after the read timeout.
    let addr = server_with(ServerOptions {
        read_timeout: Duration::from_millis(300),
        ..ServerOptions::default()
    });
    let mut s = TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20)))
        .expect("timeout");
    s.write_all(b"POST / HTTP/1.0\r\nContent-").expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("closed");
    assert_eq!(out, "");
}

#[test]
fn info_is_answered_while_a_move_is_computed() {
    let addr = server();
    assert_eq!(post(addr, "( START m only ((role only)) 2 2 )"), "ready");
    // The PLAY searches for about 1.1 s (a 2 s clock less the 0.9 s margin).
    let play = std::thread::spawn(move || post(addr, "( PLAY m NIL )"));
    std::thread::sleep(Duration::from_millis(200));
    let asked = std::time::Instant::now();
    assert!(post(addr, "( INFO )").contains("busy"));
    assert!(
        asked.elapsed() < Duration::from_millis(800),
        "INFO waited for the move"
    );
    let mv = play.join().expect("play");
    assert!(mv.starts_with("(minus"), "{mv}");
}

#[test]
fn rule_sets_ignore_layout_comments_and_order() {
    let a = rule_set("(role x) ; c\n(init (p 1))").unwrap();
    let b = rule_set("( init ( p 1 ) )\n( role x )").unwrap();
    assert_eq!(a, b);
    assert_ne!(a, rule_set("(role y) (init (p 1))").unwrap());
    assert!(rule_set("(role").is_none());
}

/// 200 requests at once while a PLAY is searched: each gets its reply, and the move comes
/// within the play clock.
#[test]
fn under_load_every_request_gets_its_reply() {
    let addr = server();
    let rules = "((role only) (init (count 10)))";
    assert_eq!(
        post(addr, &format!("( START m only {rules} 3 3 )")),
        "ready"
    );
    let asked = std::time::Instant::now();
    let play = std::thread::spawn(move || post(addr, "( PLAY m NIL )"));
    std::thread::sleep(Duration::from_millis(100));
    /// A request and what its reply must be.
    #[derive(Clone, Copy)]
    enum Kind {
        Info,
        Garbage,
        Unknown(&'static str),
        Get,
        Options,
    }
    let kinds = [
        Kind::Info,
        Kind::Garbage,
        Kind::Unknown("( PLAY no.such.match NIL )"),
        Kind::Unknown("( STOP no.such.match (x) )"),
        Kind::Unknown("( ABORT no.such.match )"),
        Kind::Get,
        Kind::Options,
    ];
    let barrier = std::sync::Arc::new(std::sync::Barrier::new(200));
    let askers: Vec<_> = (0..200)
        .map(|i| {
            let kind = kinds[i % kinds.len()];
            let barrier = barrier.clone();
            std::thread::spawn(move || {
                barrier.wait();
                match kind {
                    Kind::Info => {
                        let r = post(addr, "( INFO )");
                        assert_eq!(r, "( ( name test_player ) ( status busy ) ( engine toy ) )");
                    }
                    Kind::Garbage => {
                        let r = post(addr, "(garbage");
                        assert!(r.starts_with("error:"), "{r}");
                    }
                    Kind::Unknown(m) => assert_eq!(post(addr, m), "busy", "{m}"),
                    Kind::Get => {
                        let raw = exchange(addr, "GET /%28+INFO+%29 HTTP/1.0\r\n\r\n");
                        assert!(body_of(&raw).contains("( status busy )"), "{raw}");
                    }
                    Kind::Options => {
                        let raw = exchange(addr, "OPTIONS / HTTP/1.1\r\nHost: x\r\n\r\n");
                        assert_eq!(body_of(&raw), "");
                    }
                }
            })
        })
        .collect();
    let burst = std::time::Instant::now();
    let mut failed = 0;
    for a in askers {
        failed += usize::from(a.join().is_err());
    }
    eprintln!(
        "200 requests answered in {:?} during the search",
        burst.elapsed()
    );
    assert_eq!(failed, 0, "requests without the right reply");
    let mv = play.join().expect("play");
    assert!(mv == "(minus 1)" || mv == "(minus 2)", "{mv}");
    assert!(
        asked.elapsed() < Duration::from_secs(3),
        "the move came after the play clock: {:?}",
        asked.elapsed()
    );
    assert_eq!(post(addr, "( STOP m ((minus 1)) )"), "done");
}

/// `Countdown` whose moves are spelled `(Minus 1)`, read in that case only (as a compiled
/// game of a description in mixed case reads them).
#[derive(Clone, Copy)]
struct MixedCase(Countdown);

impl gdl_runtime::Game for MixedCase {
    type State = u32;
    type Move = u8;
    fn role_count(&self) -> usize {
        1
    }
    fn role_name(&self, _role: usize) -> &str {
        "Only"
    }
    fn initial_state(&self) -> u32 {
        self.0.initial_state()
    }
    fn is_terminal(&self, state: &u32) -> bool {
        self.0.is_terminal(state)
    }
    fn legal_moves(&self, state: &u32, role: usize, out: &mut Vec<u8>) {
        self.0.legal_moves(state, role, out)
    }
    fn next_state(&self, state: &u32, joint: &[u8], next: &mut u32) {
        self.0.next_state(state, joint, next)
    }
    fn goal(&self, state: &u32, role: usize) -> Option<i32> {
        self.0.goal(state, role)
    }
    fn write_move(&self, _role: usize, mv: u8, out: &mut String) {
        out.push_str(&format!("(Minus {mv})"));
    }
    fn parse_move(&self, _role: usize, text: &str) -> Option<u8> {
        match text {
            "(Minus 1)" => Some(1),
            "(Minus 2)" => Some(2),
            _ => None,
        }
    }
    fn write_state(&self, state: &u32, out: &mut Vec<String>) {
        self.0.write_state(state, out)
    }
}

/// An upper-cased match (as Dresden sends it) against a game spelled in mixed case: with
/// `case_fold` the moves are read without regard to case and ours go out as the game spells
/// them; without it, the moves are not the game's.
#[test]
fn case_folding_reads_upper_cased_matches() {
    let options = |case_fold| ServerOptions {
        margin: Duration::from_millis(900),
        case_fold,
        ..ServerOptions::default()
    };
    let factory = || -> EngineFactory {
        Box::new(|start: &StartRequest| {
            // The rules and the role come lower-cased when folding.
            assert_eq!(start.rules.contains("ROLE"), !start.case_fold);
            let e = GameEngine::new(
                MixedCase(Countdown::new(10)),
                Mcts::new(MctsOptions::default()),
                start,
                "toy",
            )?;
            Ok(Box::new(e) as Box<dyn MatchEngine>)
        })
    };
    let start = "( START M.1 ONLY ((ROLE ONLY) (INIT (COUNT 10))) 1 1 )";
    let addr = serve_in_thread(options(true), factory());
    assert_eq!(post(addr, start), "ready");
    let first = post(addr, "( PLAY M.1 NIL )");
    assert!(first == "(Minus 1)" || first == "(Minus 2)", "{first}");
    let second = post(addr, &format!("( PLAY M.1 ({}) )", first.to_uppercase()));
    assert!(second == "(Minus 1)" || second == "(Minus 2)", "{second}");
    assert_eq!(post(addr, "( ABORT M.1 )"), "aborted");
    // Without folding the PLAY's moves are not read: the engine says so, the reply is `nil`.
    let addr = serve_in_thread(options(false), factory());
    assert_eq!(post(addr, start), "ready");
    assert_eq!(post(addr, "( PLAY M.1 ((MINUS 1)) )"), "nil");
}

/// An engine that counts the calls to `ponder`; `searching`: each call searches (sleeps)
/// until its end and says it ran one iteration, else it has nothing to search.
pub(super) struct Pondering {
    pub(super) calls: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// The calls to `idle`.
    pub(super) looks: std::sync::Arc<std::sync::atomic::AtomicU64>,
    pub(super) searching: bool,
}

impl MatchEngine for Pondering {
    fn describe(&self) -> String {
        "pondering".into()
    }

    fn play(
        &mut self,
        _moves: Option<&[String]>,
        _deadline: Instant,
        _fallback: &mut dyn FnMut(String),
    ) -> Result<String, String> {
        Ok("noop".into())
    }

    fn idle(&mut self) {
        self.looks.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    fn ponder(&mut self, until: Instant) -> u64 {
        self.calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        match self.searching {
            true => {
                std::thread::sleep(until.saturating_duration_since(Instant::now()));
                1
            }
            false => 0,
        }
    }
}

/// The calls to an engine's `ponder` and `idle`.
type Counts = (
    std::sync::Arc<std::sync::atomic::AtomicU64>,
    std::sync::Arc<std::sync::atomic::AtomicU64>,
);

/// A server whose matches are played by [`Pondering`]; returns its address and the count of
/// `ponder` calls.
fn pondering_server(
    ponder: Ponder,
    searching: bool,
) -> (
    std::net::SocketAddr,
    std::sync::Arc<std::sync::atomic::AtomicU64>,
) {
    let (addr, (calls, _)) = counted_server(ponder, searching);
    (addr, calls)
}

/// [`pondering_server`], with the count of `idle` calls too.
fn counted_server(ponder: Ponder, searching: bool) -> (std::net::SocketAddr, Counts) {
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let looks = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counted = calls.clone();
    let looked = looks.clone();
    let addr = serve_in_thread(
        ServerOptions {
            ponder,
            ..ServerOptions::default()
        },
        Box::new(move |_: &StartRequest| {
            Ok(Box::new(Pondering {
                calls: counted.clone(),
                looks: looked.clone(),
                searching,
            }) as Box<dyn MatchEngine>)
        }),
    );
    (addr, (calls, looks))
}

/// The reply to `request`, which must come within a second (a PLAY waits one ponder slice at
/// most, not for the deadline).
fn post_at_once(addr: std::net::SocketAddr, request: &str) -> String {
    let asked = Instant::now();
    let reply = post(addr, request);
    let took = asked.elapsed();
    assert!(took < Duration::from_secs(1), "{request}: {took:?}");
    reply
}

fn ponders(calls: &std::sync::atomic::AtomicU64) -> u64 {
    calls.load(std::sync::atomic::Ordering::SeqCst)
}

#[test]
fn the_match_thread_ponders_between_plays_and_stops_at_stop() {
    let (addr, calls) = pondering_server(Ponder::On, true);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(ponders(&calls), 0, "no match, no pondering");
    assert_eq!(post(addr, "( START m only ((role only)) 10 10 )"), "ready");
    for step in 0..3 {
        let before = ponders(&calls);
        std::thread::sleep(Duration::from_millis(200));
        // Slices of 20 ms: about 10 in 200 ms, whatever the load, more than 2.
        assert!(
            ponders(&calls) >= before + 2,
            "step {step}: {}",
            ponders(&calls)
        );
        let moves = if step == 0 { "NIL" } else { "(noop)" };
        assert_eq!(post_at_once(addr, &format!("( PLAY m {moves} )")), "noop");
    }
    assert_eq!(post(addr, "( STOP m (noop) )"), "done");
    // STOP is answered by the server: the match thread may be in its last slice.
    std::thread::sleep(Duration::from_millis(100));
    let stopped = ponders(&calls);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(ponders(&calls), stopped, "pondering after STOP");
    // ABORT stops it too.
    assert_eq!(post(addr, "( START n only ((role only)) 10 10 )"), "ready");
    std::thread::sleep(Duration::from_millis(100));
    assert!(ponders(&calls) > stopped);
    assert_eq!(post(addr, "( ABORT n )"), "aborted");
    std::thread::sleep(Duration::from_millis(100));
    let aborted = ponders(&calls);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(ponders(&calls), aborted, "pondering after ABORT");
}

#[test]
fn nothing_to_ponder_is_no_busy_loop_and_off_is_off() {
    let (addr, calls) = pondering_server(Ponder::On, false);
    assert_eq!(post(addr, "( START m only ((role only)) 10 10 )"), "ready");
    std::thread::sleep(Duration::from_millis(1000));
    // One look every 250 ms when there is nothing to search: 4 or 5 in a second.
    let looks = ponders(&calls);
    assert!((1..=8).contains(&looks), "{looks} looks in 1 s");
    assert_eq!(post_at_once(addr, "( PLAY m NIL )"), "noop");

    // Off: no search between requests, only a look every 250 ms (the universal player's
    // build may be ready), and a PLAY is still answered at once.
    let (addr, (calls, looks)) = counted_server(Ponder::Off, true);
    assert_eq!(post(addr, "( START m only ((role only)) 10 10 )"), "ready");
    assert_eq!(post(addr, "( PLAY m NIL )"), "noop");
    std::thread::sleep(Duration::from_millis(1000));
    assert_eq!(ponders(&calls), 0);
    let looked = ponders(&looks);
    assert!((1..=8).contains(&looked), "{looked} looks in 1 s");
    assert_eq!(post_at_once(addr, "( PLAY m (noop) )"), "noop");
    assert_eq!(post(addr, "( STOP m (noop) )"), "done");
    std::thread::sleep(Duration::from_millis(400));
    let stopped = ponders(&looks);
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(ponders(&looks), stopped, "looks after STOP");
}

/// A START of the role `only` with no start clock (the engines' searches have budgets).
fn countdown_start() -> StartRequest {
    StartRequest {
        match_id: "m".into(),
        role: "only".into(),
        rules: String::new(),
        start_clock: Duration::ZERO,
        play_clock: Duration::from_secs(1),
        deadlines: Deadlines::start(Instant::now(), Duration::ZERO, Duration::ZERO),
        case_fold: false,
    }
}

/// A game engine ponders with its player: the search goes on from the last state.
#[test]
fn a_game_engine_ponders_with_its_player() {
    let start = countdown_start();
    let options = MctsOptions {
        max_iterations: Some(40),
        ..MctsOptions::default()
    };
    let mut engine =
        GameEngine::new(Countdown::new(1000), Mcts::new(options), &start, "toy").expect("the role");
    let far = Instant::now() + Duration::from_secs(60);
    // A budget of 40 iterations a search: pondering runs 40 more, twice.
    assert_eq!(engine.ponder(far), 40);
    assert_eq!(engine.ponder(far), 40);
    assert!(engine.play(None, far, &mut |_| {}).is_ok());
    // A countdown from 1 is proven at once: nothing is left to ponder.
    let mut done = GameEngine::new(
        Countdown::new(1),
        Mcts::new(MctsOptions::default()),
        &start,
        "toy",
    )
    .expect("the role");
    assert!(done.play(None, far, &mut |_| {}).is_ok());
    assert_eq!(done.ponder(far), 0);
}

/// An engine that sends the deadline of each PLAY.
struct SeenDeadlines(std::sync::mpsc::Sender<Instant>);

impl MatchEngine for SeenDeadlines {
    fn describe(&self) -> String {
        "deadlines".into()
    }

    fn play(
        &mut self,
        _moves: Option<&[String]>,
        deadline: Instant,
        _fallback: &mut dyn FnMut(String),
    ) -> Result<String, String> {
        let _ = self.0.send(deadline);
        Ok("noop".into())
    }
}

/// The deadlines run from the request's arrival less the margin; START keeps more.
#[test]
fn deadlines_keep_the_margin_and_start_keeps_more() {
    let (margins, seen_margins) = std::sync::mpsc::channel();
    let (deadlines, seen_deadlines) = std::sync::mpsc::channel();
    let addr = serve_in_thread(
        ServerOptions {
            margin: Duration::from_millis(900),
            ..ServerOptions::default()
        },
        Box::new(move |start: &StartRequest| {
            let _ = margins.send(start.deadlines.clock - start.deadlines.search);
            Ok(Box::new(SeenDeadlines(deadlines.clone())) as Box<dyn MatchEngine>)
        }),
    );
    assert_eq!(post(addr, "( START m only ((role only)) 10 10 )"), "ready");
    let margin = seen_margins.recv_timeout(Duration::from_secs(10));
    assert_eq!(margin, Ok(Duration::from_millis(900) + START_EXTRA_MARGIN));
    let asked = Instant::now();
    assert_eq!(post(addr, "( PLAY m NIL )"), "noop");
    let deadline = seen_deadlines
        .recv_timeout(Duration::from_secs(10))
        .expect("a deadline");
    // 10 s less 0.9 s from the arrival, which is after `asked`, by less than a second.
    let left = deadline.saturating_duration_since(asked);
    assert!(
        (Duration::from_millis(9100)..Duration::from_millis(10_100)).contains(&left),
        "{left:?}"
    );
}

/// An engine whose search stalls for `stall` past its deadline: with `leaves`, it leaves the
/// fallback `(stalled)` first.
struct Stalling {
    stall: Duration,
    leaves: bool,
}

impl MatchEngine for Stalling {
    fn describe(&self) -> String {
        "stalling".into()
    }

    fn play(
        &mut self,
        _moves: Option<&[String]>,
        deadline: Instant,
        fallback: &mut dyn FnMut(String),
    ) -> Result<String, String> {
        if self.leaves {
            fallback("(stalled)".into());
        }
        std::thread::sleep(deadline.saturating_duration_since(Instant::now()) + self.stall);
        Ok("(searched)".into())
    }
}

/// A server of [`Stalling`] engines (margin 0.3 s).
fn stalling_server(stall: Duration, leaves: bool) -> std::net::SocketAddr {
    serve_in_thread(
        ServerOptions::default(),
        Box::new(move |_: &StartRequest| {
            Ok(Box::new(Stalling { stall, leaves }) as Box<dyn MatchEngine>)
        }),
    )
}

/// A search stalled past the play clock: the fallback the engine left goes half a second
/// after the clock; a late answer in the grace, or one with no fallback, is waited for.
#[test]
fn a_stalled_search_is_answered_with_the_fallback_after_the_clock() {
    let addr = stalling_server(Duration::from_secs(3), true);
    assert_eq!(post(addr, "( START m only ((role only)) 10 1 )"), "ready");
    let asked = Instant::now();
    assert_eq!(post(addr, "( PLAY m NIL )"), "(stalled)");
    let took = asked.elapsed();
    // The clock (1 s) and FALLBACK_AFTER_CLOCK, not the 3.7 s of the search.
    assert!(
        took >= Duration::from_millis(1400) && took < Duration::from_millis(2500),
        "{took:?}"
    );
    // The match goes on: the next PLAY (the thread still stalled in the first) gets the
    // fallback as soon as the thread starts it and leaves one, not the stalled answer.
    let asked = Instant::now();
    assert_eq!(post(addr, "( PLAY m (noop) )"), "(stalled)");
    assert!(
        asked.elapsed() < Duration::from_millis(3500),
        "{:?}",
        asked.elapsed()
    );

    // Late, but within FALLBACK_AFTER_CLOCK: the search's own move.
    let addr = stalling_server(Duration::from_millis(100), true);
    assert_eq!(post(addr, "( START m only ((role only)) 10 1 )"), "ready");
    assert_eq!(post(addr, "( PLAY m NIL )"), "(searched)");

    // No fallback left (an engine that gives none): the answer, however late.
    let addr = stalling_server(Duration::from_millis(1200), false);
    assert_eq!(post(addr, "( START m only ((role only)) 10 1 )"), "ready");
    let asked = Instant::now();
    assert_eq!(post(addr, "( PLAY m NIL )"), "(searched)");
    assert!(asked.elapsed() >= Duration::from_millis(1800));
}

/// The game engine leaves one of its legal moves as the fallback, after the joint move.
#[test]
fn the_game_engine_leaves_a_legal_move_as_the_fallback() {
    let start = countdown_start();
    let options = MctsOptions {
        max_iterations: Some(50),
        ..MctsOptions::default()
    };
    let game = Countdown::new(10);
    let mut engine = GameEngine::new(game, Mcts::new(options), &start, "toy").expect("the role");
    let far = Instant::now() + Duration::from_secs(60);
    let mut left = Vec::new();
    let first = engine
        .play(None, far, &mut |m| left.push(m))
        .expect("a move");
    assert_eq!(left.len(), 1);
    let legal_text = |state: &<Countdown as gdl_runtime::Game>::State| {
        let mut moves = Vec::new();
        gdl_runtime::Game::legal_moves(&game, state, 0, &mut moves);
        moves
            .into_iter()
            .map(|m| gdl_runtime::Game::move_text(&game, 0, m))
            .collect::<Vec<_>>()
    };
    let initial = gdl_runtime::Game::initial_state(&game);
    assert!(legal_text(&initial).contains(&left[0]), "{left:?}");
    // After the joint move: a legal move of the state it reached.
    left.clear();
    engine
        .play(Some(std::slice::from_ref(&first)), far, &mut |m| {
            left.push(m)
        })
        .expect("a move");
    let mv = gdl_runtime::Game::parse_move(&game, 0, &first).expect("a move of the game");
    let mut after = initial;
    gdl_runtime::Game::next_state(&game, &initial, &[mv], &mut after);
    assert_eq!(left.len(), 1);
    assert!(legal_text(&after).contains(&left[0]), "{left:?}");
}

/// An engine that hands over to another after its first PLAY, as the universal player's
/// network hands over to the compiled game.
struct HandsOver {
    played: bool,
}

impl MatchEngine for HandsOver {
    fn describe(&self) -> String {
        match self.played {
            false => "first".into(),
            true => "second".into(),
        }
    }

    fn play(
        &mut self,
        _moves: Option<&[String]>,
        _deadline: Instant,
        _fallback: &mut dyn FnMut(String),
    ) -> Result<String, String> {
        self.played = true;
        Ok("noop".into())
    }
}

/// INFO names the engine that START made, then the one that answered the last PLAY.
#[test]
fn info_names_the_engine_of_the_last_play() {
    let addr = serve_in_thread(
        ServerOptions::default(),
        Box::new(|_: &StartRequest| {
            Ok(Box::new(HandsOver { played: false }) as Box<dyn MatchEngine>)
        }),
    );
    assert_eq!(post(addr, "( START m only ((role only)) 10 10 )"), "ready");
    let busy = |engine: &str| format!("( ( name gdlc ) ( status busy ) ( engine {engine} ) )");
    assert_eq!(post(addr, "( INFO )"), busy("first"));
    assert_eq!(post(addr, "( PLAY m NIL )"), "noop");
    assert_eq!(post(addr, "( INFO )"), busy("second"));
    assert_eq!(post(addr, "( STOP m (noop) )"), "done");
    assert_eq!(
        post(addr, "( INFO )"),
        "( ( name gdlc ) ( status available ) )"
    );
}
