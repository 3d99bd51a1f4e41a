//! Shared helpers of the corpus tests: where the corpus is, which games it has, and a
//! parallel runner that reports a game that hangs instead of hanging the test run.

pub mod compiled;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The corpus directory: `$GDL_CORPUS`, or `../shared` beside the repository.
pub fn corpus_dir() -> PathBuf {
    match std::env::var_os("GDL_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
    }
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
    let root = corpus_dir();
    let mut games = Vec::new();
    let collections = std::fs::read_dir(root.join("games")).unwrap_or_else(|e| {
        panic!(
            "corpus not found at {} ({e}); set GDL_CORPUS",
            root.display()
        )
    });
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
    games
}

/// Reads a description as the CLI does (invalid UTF-8 replaced).
pub fn read_game(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Runs `job` on every item on all cores and returns the results in order, with how long each
/// took. If one item runs longer than `limit`, the process exits after naming it, so that a
/// hang is reported instead of blocking the test run.
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
    let running: Mutex<Vec<Option<(usize, Instant)>>> = Mutex::new(vec![None; threads]);
    let done = AtomicUsize::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            while done.load(Ordering::SeqCst) < threads {
                std::thread::sleep(Duration::from_millis(200));
                for (i, start) in running.lock().unwrap().iter().flatten() {
                    if start.elapsed() > limit {
                        eprintln!("{} did not finish within {limit:?}", label(&items[*i]));
                        std::process::exit(101);
                    }
                }
            }
        });
        for t in 0..threads {
            let (next, results, running, done, job) = (&next, &results, &running, &done, &job);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= items.len() {
                        break;
                    }
                    let start = Instant::now();
                    running.lock().unwrap()[t] = Some((i, start));
                    let r = job(&items[i]);
                    running.lock().unwrap()[t] = None;
                    results.lock().unwrap()[i] = Some((r, start.elapsed()));
                }
                done.fetch_add(1, Ordering::SeqCst);
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
