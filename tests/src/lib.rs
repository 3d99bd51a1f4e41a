//! Shared helpers of the corpus tests: where the corpus is, which games it has, one
//! [`libtest_mimic`] trial per game (a failure names the game, the others still run; the
//! trials are ignored, after one line saying so, when the corpus is absent), and a watchdog
//! that reports a game that hangs instead of hanging the test run.
//!
//! ```no_run
//! // Every game of the corpus (`$GDL_CORPUS`), with its reference trace when there is one.
//! for game in gdl_tests::corpus_games() {
//!     println!("{} {} {:?}", game.collection, game.name, game.trace);
//! }
//! ```

pub mod compiled;

pub use libtest_mimic::{Arguments, Failed, Trial};

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, Once};
use std::time::{Duration, Instant};

/// The corpus directory: `$GDL_CORPUS`, or `../shared` beside the repository.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("GDL_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
}

/// The path of a game shipped in `examples/` (e.g. `ticTacToe.kif`), as text.
pub fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples")
        .join(name)
        .display()
        .to_string()
}

/// Reads a player's standard error (piped) until it says `listening on ADDR`, and returns
/// the address; the rest of its log is drained on a thread, so it never blocks on the pipe.
pub fn listening_address(child: &mut std::process::Child) -> std::net::SocketAddr {
    listening_with_log(child).0
}

/// [`listening_address`], and the player's other log lines (those before the address too), as
/// they come.
pub fn listening_with_log(
    child: &mut std::process::Child,
) -> (std::net::SocketAddr, std::sync::mpsc::Receiver<String>) {
    use std::io::BufRead;
    let stderr = child.stderr.take().expect("a piped standard error");
    let mut lines = std::io::BufReader::new(stderr).lines();
    let (sender, log) = std::sync::mpsc::channel();
    let addr = loop {
        let line = lines
            .next()
            .expect("the player says where it listens")
            .expect("readable");
        if let Some(a) = line.split("listening on ").nth(1) {
            let a = a.split_whitespace().next().unwrap_or_default();
            break a.parse().expect("an address");
        }
        // A line logged before the address (a warm-up done from the cache at once) is kept.
        let _ = sender.send(line);
    };
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            // Nobody listening any more: keep draining.
            let _ = sender.send(line);
        }
    });
    (addr, log)
}

/// The lines of `log` until one contains `needle` (returned last), waiting at most `patience`
/// in all; `Err` with the lines seen when it does not come.
pub fn wait_for_line(
    log: &std::sync::mpsc::Receiver<String>,
    needle: &str,
    patience: Duration,
) -> Result<Vec<String>, Vec<String>> {
    let until = std::time::Instant::now() + patience;
    let mut seen = Vec::new();
    loop {
        let left = until.saturating_duration_since(std::time::Instant::now());
        match log.recv_timeout(left) {
            Ok(line) => {
                let found = line.contains(needle);
                seen.push(line);
                if found {
                    return Ok(seen);
                }
            }
            Err(_) => return Err(seen),
        }
    }
}

/// `program play --port 0 --bind 127.0.0.1 --margin 0.5` (`gdlc` or a built game's binary),
/// with the build cache [`test_cache`],
/// its standard error piped for [`listening_address`]; add arguments or environment, then
/// [`spawn_listening`].
pub fn player_command(program: impl AsRef<std::ffi::OsStr>) -> std::process::Command {
    let mut command = std::process::Command::new(program);
    command
        .args([
            "play",
            "--port",
            "0",
            "--bind",
            "127.0.0.1",
            "--margin",
            "0.5",
        ])
        .env("GDLC_CACHE", test_cache())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    command
}

/// The build cache of the tests' players (`GDLC_CACHE`), kept between runs under the
/// workspace's `target/`: the runtime and its HTTP stack are built there once, whichever test
/// builds first.
pub fn test_cache() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/test-player-cache")
}

/// Starts a player command and returns it with the address it listens on. Kill it when done.
pub fn spawn_listening(
    command: &mut std::process::Command,
) -> (std::process::Child, std::net::SocketAddr) {
    let mut child = command.spawn().expect("the player starts");
    let addr = listening_address(&mut child);
    (child, addr)
}

/// [`player_command`] with `extra` arguments, started ([`spawn_listening`]).
pub fn spawn_player(
    program: impl AsRef<std::ffi::OsStr>,
    extra: &[&str],
) -> (std::process::Child, std::net::SocketAddr) {
    spawn_listening(player_command(program).args(extra))
}

/// POSTs a protocol message as game managers do and returns the reply's body (the status line
/// must be `HTTP/1.0 200 OK`).
pub fn post(addr: std::net::SocketAddr, message: &str) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(addr).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    write!(
        s,
        "POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {}\r\n\r\n{message}",
        message.len()
    )
    .expect("write");
    let mut raw = String::new();
    s.read_to_string(&mut raw).expect("read");
    let (head, body) = raw.split_once("\r\n\r\n").expect("a reply");
    assert!(head.starts_with("HTTP/1.0 200 OK"), "{head}");
    body.to_string()
}

/// One match of tic-tac-toe, this test as the game manager.
pub struct TicTacToeMatch<'a> {
    /// The match id.
    pub id: &'a str,
    /// The start clock, seconds (the play clock is 1 s).
    pub start_clock: u32,
    /// Runs before each PLAY (step 1 first).
    pub before_play: &'a mut dyn FnMut(u32),
}

/// Plays a whole match of `examples/ticTacToe.kif` against the player at `addr` (role x),
/// the other role playing random legal moves: START answered `ready`, every move of the
/// player legal (checked with the interpreter), the match over within 20 steps, STOP answered
/// `done`.
pub fn play_tic_tac_toe(addr: std::net::SocketAddr, game_match: TicTacToeMatch<'_>) {
    use gdl_runtime::{Game, SplitMix64};
    let rules = std::fs::read_to_string(example("ticTacToe.kif")).expect("readable");
    let game = gdlc::interp::Interpreter::from_source(rules.as_str(), &Default::default())
        .expect("the example checks");
    let TicTacToeMatch {
        id,
        start_clock,
        before_play,
    } = game_match;
    let start = format!("( START {id} x ({rules}) {start_clock} 1 )");
    assert_eq!(post(addr, &start), "ready");
    let mut rng = SplitMix64::new(7);
    let mut state = game.initial_state();
    let mut last = "NIL".to_string();
    let mut moves = Vec::new();
    for step in 1..=20 {
        if game.is_terminal(&state) {
            break;
        }
        before_play(step);
        let reply = post(addr, &format!("( PLAY {id} {last} )"));
        let ours = game
            .parse_move(0, &reply)
            .unwrap_or_else(|| panic!("not a move: {reply}"));
        game.legal_moves(&state, 0, &mut moves);
        assert!(moves.contains(&ours), "an illegal move: {reply}");
        game.legal_moves(&state, 1, &mut moves);
        let joint = [ours, moves[rng.below(moves.len())]];
        last = format!(
            "({} {})",
            game.move_text(0, joint[0]),
            game.move_text(1, joint[1])
        );
        let mut next = state.clone();
        game.next_state(&state, &joint, &mut next);
        state = next;
    }
    assert!(game.is_terminal(&state), "the match did not end");
    assert_eq!(post(addr, &format!("( STOP {id} {last} )")), "done");
}

/// One GDL-II match, this test as the game manager: the true state kept by the interpreter,
/// the other roles (and `random`) drawing uniformly among their legal moves with `seed`.
pub struct Gdl2Match<'a> {
    /// The match id.
    pub id: &'a str,
    /// The rules (KIF).
    pub rules: &'a str,
    /// The player's role.
    pub role: &'a str,
    pub seed: u64,
    /// The start and play clocks, seconds.
    pub clocks: (u32, u32),
    /// Runs before each PLAY (turn 0 first).
    pub before_play: &'a mut dyn FnMut(u64),
}

/// `( a b )`, or `NIL` for nothing.
fn kif_list(items: &[String]) -> String {
    match items.is_empty() {
        true => "NIL".to_string(),
        false => format!("({})", items.join(" ")),
    }
}

/// Plays a whole GDL-II match against the player at `addr` (`( PLAY <id> <turn> <lastmove>
/// <percepts> )`): START answered `ready`, every move of the player legal in the true state,
/// the match over within 100 turns, STOP answered `done`. Returns the moves checked.
pub fn play_gdl2_match(addr: std::net::SocketAddr, game_match: Gdl2Match<'_>) -> usize {
    use gdl_runtime::{Game, SplitMix64};
    let Gdl2Match {
        id,
        rules,
        role,
        seed,
        clocks: (start_clock, play_clock),
        before_play,
    } = game_match;
    let game = gdlc::interp::Interpreter::from_source(rules, &Default::default())
        .expect("the rules check");
    let ours = (0..game.role_count())
        .find(|&r| game.role_name(r) == role)
        .expect("the role");
    let start = format!("( START {id} {role} ({rules}) {start_clock} {play_clock} )");
    assert_eq!(post(addr, &start), "ready");
    let mut rng = SplitMix64::new(seed);
    let mut state = game.initial_state();
    let mut legal = Vec::new();
    let mut percepts = Vec::new();
    let mut last: Option<String> = None;
    let mut checked = 0;
    for turn in 0..100 {
        if game.is_terminal(&state) {
            break;
        }
        before_play(turn);
        let message = match &last {
            None => format!("( PLAY {id} 0 NIL NIL )"),
            Some(m) => format!("( PLAY {id} {turn} {m} {} )", kif_list(&percepts)),
        };
        let reply = post(addr, &message);
        game.legal_moves(&state, ours, &mut legal);
        let mv = game
            .parse_move(ours, &reply)
            .filter(|m| legal.contains(m))
            .unwrap_or_else(|| panic!("turn {turn}: {reply:?} is not a legal move of {role}"));
        checked += 1;
        let joint: Vec<_> = (0..game.role_count())
            .map(|r| match r == ours {
                true => mv,
                false => {
                    game.legal_moves(&state, r, &mut legal);
                    legal[rng.below(legal.len())]
                }
            })
            .collect();
        percepts.clear();
        game.percepts(&state, &joint, ours, &mut percepts);
        let mut next = state.clone();
        game.next_state(&state, &joint, &mut next);
        state = next;
        last = Some(reply);
    }
    assert!(game.is_terminal(&state), "the match did not end");
    let m = last.expect("a move");
    let stop = format!("( STOP {id} 9 {m} {} )", kif_list(&percepts));
    assert_eq!(post(addr, &stop), "done");
    checked
}

/// The universal player (any rules that check, played by the interpreter with MCTS, GDL-II
/// matches with its beliefs) served in this process on 127.0.0.1, on a thread of its own
/// (for the life of the test process); returns the address.
pub fn serve_universal_player(options: gdl_player::http::ServerOptions) -> std::net::SocketAddr {
    use gdl_player::http::{EngineFactory, GameEngine, MatchEngine, StartRequest};
    use gdl_player::{Mcts, MctsOptions};
    let mut matches = 0u64;
    let factory: EngineFactory = Box::new(move |start: &StartRequest| {
        let game = gdlc::interp::Interpreter::from_source(
            start.rules.as_str(),
            &gdlc::CheckOptions::default(),
        )
        .map_err(|e| format!("the rules do not check: {:?}", e.first()))?;
        matches += 1;
        let player = Mcts::new(MctsOptions {
            seed: matches,
            ..MctsOptions::default()
        });
        let engine = GameEngine::new(game, player, start, "interpreted")?;
        Ok(Box::new(engine) as Box<dyn MatchEngine>)
    });
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            tx.send(listener.local_addr().expect("addr")).expect("send");
            let _ = gdl_player::http::serve(listener, options, factory).await;
        });
    });
    rx.recv_timeout(Duration::from_secs(10)).expect("server up")
}

/// A game of the corpus.
#[derive(Clone, Debug)]
pub struct CorpusGame {
    /// `ggp-repository` or `ggp-base-tests`.
    pub collection: String,
    pub name: String,
    pub kif: PathBuf,
    /// The reference trace, when there is one.
    pub trace: Option<PathBuf>,
}

/// Every game of `games/*/`, sorted by collection and name. Panics when the corpus is missing:
/// a test that silently finds no games would pass without checking anything.
pub fn corpus_games() -> Vec<CorpusGame> {
    match try_corpus_games() {
        Ok(games) => games,
        Err(Absent(why)) => panic!("{why}; set GDL_CORPUS"),
    }
}

/// The corpus is not there: why, with the directory looked in.
#[derive(Clone, Debug)]
pub struct Absent(pub String);

/// Every game of `games/*/`, sorted by collection and name; [`Absent`] when there is no
/// `games/` directory. Panics when the corpus is there but unreadable or much smaller than
/// expected.
pub fn try_corpus_games() -> Result<Vec<CorpusGame>, Absent> {
    let root = corpus_dir();
    let mut games = Vec::new();
    let collections = std::fs::read_dir(root.join("games"))
        .map_err(|e| Absent(format!("corpus not found at {} ({e})", root.display())))?;
    for collection in collections {
        let collection = collection.expect("readable corpus").path();
        let cname = collection
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for entry in std::fs::read_dir(&collection).expect("readable corpus") {
            let kif = entry.expect("readable corpus").path();
            if kif.extension().is_none_or(|e| e != "kif") {
                continue;
            }
            let name = kif.file_stem().unwrap().to_string_lossy().into_owned();
            let trace = root.join("traces").join(&cname).join(format!("{name}.txt"));
            games.push(CorpusGame {
                collection: cname.clone(),
                name,
                kif,
                trace: trace.exists().then_some(trace),
            });
        }
    }
    games.sort_by(|a, b| (&a.collection, &a.name).cmp(&(&b.collection, &b.name)));
    assert!(
        games.len() > 250,
        "only {} games under {}",
        games.len(),
        root.display()
    );
    Ok(games)
}

/// Reads a description as the CLI does (invalid UTF-8 replaced).
pub fn read_game(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Where the corpus comes from, for the line printed when it is absent.
pub const CORPUS_ORIGIN: &str = "the games of the public ggp.org game repository \
     (http://games.ggp.org/) and the ggp-base tests, under games/, with the reference traces \
     under traces/";

/// The games of the corpus; `None`, after one line on standard error saying the corpus is
/// absent and where it comes from, when there is none.
pub fn corpus_or_notice(binary: &str) -> Option<Vec<CorpusGame>> {
    match try_corpus_games() {
        Ok(games) => Some(games),
        Err(Absent(why)) => {
            eprintln!(
                "{binary}: {why}: the corpus tests are ignored (set GDL_CORPUS to a directory \
                 holding {CORPUS_ORIGIN})"
            );
            None
        }
    }
}

/// `$GDL_CORPUS/relative` (a file or a directory of the corpus) when it is there; `None`,
/// after one line on standard error naming `test` and the path, when it is absent. Every test
/// that reads the corpus outside [`corpus_or_notice`]'s trials skips through here, alike.
pub fn corpus_path(test: &str, relative: &str) -> Option<PathBuf> {
    let path = corpus_dir().join(relative);
    if path.exists() {
        Some(path)
    } else {
        eprintln!(
            "{test}: {} is absent: skipped (set GDL_CORPUS to a directory holding \
             {CORPUS_ORIGIN})",
            path.display()
        );
        None
    }
}

/// The trial that stands for the games of an absent corpus: ignored (and failing when run
/// with `--include-ignored`).
pub fn absent_trial(what: &str) -> Trial {
    Trial::test(format!("{what}/corpus-absent"), || {
        Err(format!("the corpus is absent: set GDL_CORPUS ({CORPUS_ORIGIN})").into())
    })
    .with_ignored_flag(true)
}

/// A trial named `COLLECTION/NAME` that runs `check` on the game under the watchdog
/// ([`watched`], `limit`).
pub fn game_trial(
    game: &CorpusGame,
    limit: Duration,
    check: impl FnOnce(&CorpusGame) -> Result<(), String> + Send + 'static,
) -> Trial {
    let label = format!("{}/{}", game.collection, game.name);
    let game = game.clone();
    Trial::test(label.clone(), move || {
        watched(&label, limit, || check(&game)).map_err(Failed::from)
    })
}

/// Runs the trials with the command line's arguments (`--test-threads`, filters, ...) and
/// exits with the harness's status.
pub fn run_trials(trials: Vec<Trial>) -> ! {
    libtest_mimic::run(&Arguments::from_args(), trials).exit()
}

/// One job the watchdog watches.
struct Watch {
    id: u64,
    label: String,
    start: Instant,
    limit: Duration,
}

static WATCHED: Mutex<Vec<Watch>> = Mutex::new(Vec::new());
static WATCH_IDS: AtomicU64 = AtomicU64::new(0);
static WATCHDOG: Once = Once::new();

fn watch_list() -> std::sync::MutexGuard<'static, Vec<Watch>> {
    WATCHED.lock().unwrap_or_else(|e| e.into_inner())
}

/// Runs `job`; if it runs longer than `limit`, the process exits after naming `label`, so that
/// a hang is reported instead of blocking the test run. Any number of threads may use it at
/// once (one watchdog thread watches them all).
pub fn watched<R>(label: &str, limit: Duration, job: impl FnOnce() -> R) -> R {
    WATCHDOG.call_once(|| {
        std::thread::spawn(|| {
            loop {
                std::thread::sleep(Duration::from_millis(200));
                for w in watch_list().iter() {
                    if w.start.elapsed() > w.limit {
                        eprintln!("{} did not finish within {:?}", w.label, w.limit);
                        std::process::exit(101);
                    }
                }
            }
        });
    });
    /// Unregisters the job when it ends, even by a panic.
    struct Done(u64);
    impl Drop for Done {
        fn drop(&mut self) {
            watch_list().retain(|w| w.id != self.0);
        }
    }
    let id = WATCH_IDS.fetch_add(1, Ordering::Relaxed);
    watch_list().push(Watch {
        id,
        label: label.to_string(),
        start: Instant::now(),
        limit,
    });
    let _done = Done(id);
    job()
}

/// Runs `job` on every item on all cores and returns the results in order, with how long each
/// took. If one item runs longer than `limit`, the process exits after naming it ([`watched`]).
pub fn run_parallel<T: Sync, R: Send>(
    items: &[T],
    label: impl Fn(&T) -> String + Sync,
    limit: Duration,
    job: impl Fn(&T) -> R + Sync,
) -> Vec<(R, Duration)> {
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<(R, Duration)>>> =
        Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..threads {
            let (next, results, job, label) = (&next, &results, &job, &label);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= items.len() {
                        break;
                    }
                    let start = Instant::now();
                    let r = watched(&label(&items[i]), limit, || job(&items[i]));
                    results.lock().unwrap()[i] = Some((r, start.elapsed()));
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap()
        .into_iter()
        .map(|r| r.expect("every item ran"))
        .collect()
}

/// The reference trace of `game` (its seed-1 playout), read from the corpus.
pub fn reference_trace_of(game: &CorpusGame) -> Result<String, String> {
    let path = game.trace.as_ref().ok_or("no reference trace")?;
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// `Ok` when `actual` is the reference trace `expected` byte for byte; else where they first
/// differ, with both lines (`who` names the engine that played `actual`).
pub fn same_trace(expected: &str, actual: &str, who: &str) -> Result<(), String> {
    if actual == expected {
        return Ok(());
    }
    let line = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .map_or(expected.lines().count().min(actual.lines().count()), |l| l);
    Err(format!(
        "{who} differs from the reference trace at line {}:\nexpected: {}\nactual:   {}",
        line + 1,
        expected.lines().nth(line).unwrap_or("<end>"),
        actual.lines().nth(line).unwrap_or("<end>")
    ))
}
