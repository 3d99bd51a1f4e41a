//! `cargo xtask validate`: `gdlc validate --json` on every game of the corpus (or those of
//! `--games`), each in a child process under a time and an address-space limit, and the
//! results as a Markdown table (`--out VALIDATION.md`): every game, the mode, the states
//! explored, the value, the findings and the verdict; then, per game with errors, each error
//! with the start of its move sequence.

use std::fmt::Write as _;
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use gdl_tests::{CorpusGame, corpus_games};
use serde_json::Value;

use crate::common::{self, pmap};

/// Joint moves of a path shown in the findings section before it is cut.
const SHOWN_MOVES: usize = 30;

/// The arguments of `cargo xtask validate`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Only the games matching these comma-separated patterns (as `corpus --games`).
    #[arg(long, value_name = "PATTERN")]
    pub games: Option<String>,
    /// Games validated at once.
    #[arg(long, default_value_t = 1)]
    pub jobs: usize,
    /// `gdlc validate --seconds` for each game.
    #[arg(long, default_value_t = 30.0)]
    pub seconds: f64,
    /// `gdlc validate --max-states`.
    #[arg(long, default_value_t = 4_000_000)]
    pub max_states: usize,
    /// `gdlc validate --threads`.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// The engine: `compiled` builds each game (through gdlc's build cache) and falls back to
    /// the interpreter when it does not compile; `interpreted` runs the interpreter only (no
    /// builds: the whole corpus in minutes, fewer states explored).
    #[arg(long, value_enum, default_value_t = Engine::Compiled)]
    pub engine: Engine,
    /// Time limit of one game (compiling and building it included), in seconds.
    #[arg(long, default_value_t = 900)]
    pub timeout: u64,
    /// Address-space limit of every child process, in GiB.
    #[arg(long, default_value_t = 8.0)]
    pub memory_gb: f64,
    /// Write the table as Markdown to this file.
    #[arg(long, value_name = "VALIDATION.md")]
    pub out: Option<PathBuf>,
}

/// The engine `cargo xtask validate` explores the games with.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Engine {
    Compiled,
    Interpreted,
}

/// How one game went.
enum Outcome {
    /// The report, with the exit status and the engine that made it.
    Report(i32, Value, &'static str),
    /// No report: why (does not compile, timed out, ...).
    Failed(String),
}

pub fn run(args: Args) -> ExitCode {
    let games = common::select(corpus_games(), args.games.as_deref());
    let gdlc = match build_gdlc() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let started = Instant::now();
    let label = |g: &CorpusGame| format!("{}/{}", g.collection, g.name);
    // A game that does not compile (too large to ground, say) is explored by the interpreter.
    let outcomes = pmap(
        &games,
        args.jobs,
        Some(("validate", &label)),
        |g| match args.engine {
            Engine::Interpreted => validate_one(&gdlc, &g.kif, &args, "interpreted"),
            Engine::Compiled => match validate_one(&gdlc, &g.kif, &args, "compiled") {
                Outcome::Failed(why) => match validate_one(&gdlc, &g.kif, &args, "interpreted") {
                    Outcome::Failed(again) => {
                        Outcome::Failed(format!("{why}; interpreted: {again}"))
                    }
                    report => report,
                },
                report => report,
            },
        },
    );
    let markdown = render(&games, &outcomes, &args, started.elapsed());
    print!("{markdown}");
    if let Some(out) = &args.out
        && let Err(e) = std::fs::write(out, &markdown)
    {
        eprintln!("error: cannot write {}: {e}", out.display());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// `cargo build --release -p gdlc --bin gdlc`: the binary's path.
fn build_gdlc() -> Result<PathBuf, String> {
    let status = Command::new(gdlc::cargo::program())
        .args(["build", "--release", "-p", "gdlc", "--bin", "gdlc"])
        .current_dir(common::repo_root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building gdlc failed ({status})"));
    }
    Ok(common::target_dir().join("release/gdlc"))
}

/// Runs `gdlc validate --json --engine ENGINE` on one game under the limits.
fn validate_one(gdlc: &Path, kif: &Path, args: &Args, engine: &'static str) -> Outcome {
    let threads = if engine == "compiled" {
        args.threads
    } else {
        1
    };
    let argv = [
        "validate".to_string(),
        kif.display().to_string(),
        "--json".to_string(),
        format!("--engine={engine}"),
        format!("--seconds={}", args.seconds),
        format!("--max-states={}", args.max_states),
        format!("--threads={threads}"),
    ];
    let limits = JsonLimits {
        timeout: Duration::from_secs(args.timeout),
        memory_gb: args.memory_gb,
    };
    match run_json(gdlc, &argv, &limits) {
        Ok((_, v)) if v.get("rejected").is_some() => Outcome::Failed(rejection(&v)),
        Ok((status, v)) => Outcome::Report(status, v, engine),
        Err(why) => Outcome::Failed(why),
    }
}

/// The limits of [`run_json`].
pub struct JsonLimits {
    pub timeout: Duration,
    /// Address space, in GiB.
    pub memory_gb: f64,
}

/// Runs `program` with `argv` under the limits, its standard output one JSON object (a
/// `validate --json` report): the exit status (any) and the object; or why there is none
/// (timed out; no JSON: the first line of standard error).
pub fn run_json(
    program: &Path,
    argv: &[String],
    limits: &JsonLimits,
) -> Result<(i32, Value), String> {
    let memory = (limits.memory_gb * (1u64 << 30) as f64) as u64;
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {} && exec \"$0\" \"$@\"", memory / 1024))
        .arg(program)
        .args(argv)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = stdout.as_mut() {
            let _ = s.read_to_end(&mut out);
        }
        out
    });
    let err_reader = std::thread::spawn(move || {
        let mut err = Vec::new();
        if let Some(s) = stderr.as_mut() {
            let _ = s.read_to_end(&mut err);
        }
        err
    });
    let deadline = Instant::now() + limits.timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(200)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    let out = reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    let Some(status) = status else {
        return Err(format!("timed out after {} s", limits.timeout.as_secs()));
    };
    match serde_json::from_slice::<Value>(&out) {
        Ok(v) => Ok((status.code().unwrap_or(-1), v)),
        Err(_) => {
            // No JSON at all (a crash, the address-space limit): the first line said.
            let err = String::from_utf8_lossy(&err);
            let first = err.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
            Err(format!("no report ({status}): {}", first.trim()))
        }
    }
}

/// Why `gdlc validate --json` rejected a description: its first error (`[code] message`),
/// and how many more diagnostics there were.
fn rejection(v: &Value) -> String {
    let all = v["rejected"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let first = all
        .iter()
        .find(|d| d["severity"] == "error")
        .or(all.first());
    let Some(d) = first else {
        return "rejected".to_string();
    };
    let more = match all.len() {
        0 | 1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    format!(
        "rejected: [{}] {}{more}",
        d["code"].as_str().unwrap_or("?"),
        d["message"].as_str().unwrap_or("")
    )
}

fn render(games: &[CorpusGame], outcomes: &[Outcome], args: &Args, took: Duration) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# Validation of the corpus\n");
    let _ = writeln!(
        s,
        "Written by `cargo xtask validate --engine {} --seconds {} --max-states {} --threads {}{}` \
         ({} games, {:.0} s, load {}). Each game is explored by `gdlc validate` on {}: *exhaustive* when every reachable state was seen within the limits, else \
         *sampled* (breadth-first up to the limit, or until the states waiting could not be \
         expanded in the time left, then random playouts). Descriptions with `base` / `input` \
         are checked against them. Verdicts: \
         `well-formed`, `ERRORS` (the game breaks well-formedness; the moves that show it are \
         below), `undecided` (sampled, no error found). Findings are `code[role]×count`.\n",
        match args.engine {
            Engine::Compiled => "compiled",
            Engine::Interpreted => "interpreted",
        },
        args.seconds,
        args.max_states,
        args.threads,
        args.games
            .as_deref()
            .map_or(String::new(), |g| format!(" --games {g}")),
        games.len(),
        took.as_secs_f64(),
        common::load_average().unwrap_or_else(|| "unknown".into()),
        match args.engine {
            Engine::Compiled => "the compiled engine (on the interpreter when it does not compile)",
            Engine::Interpreted => "the interpreter",
        },
    );
    let _ = writeln!(
        s,
        "| game | engine | mode | states | depth | value | findings | verdict |\n|---|---|---|---:|---:|---|---|---|"
    );
    let mut details = String::new();
    let (mut well, mut bad, mut undecided, mut failed) = (0, 0, 0, 0);
    for (g, o) in games.iter().zip(outcomes) {
        let name = format!("{}/{}", g.collection, g.name);
        match o {
            Outcome::Failed(why) => {
                failed += 1;
                let why = why.replace('|', "\\|");
                let _ = writeln!(s, "| {name} | | — | | | | | FAIL: {why} |");
            }
            Outcome::Report(code, r, engine) => {
                let verdict = match code {
                    0 => {
                        well += 1;
                        "well-formed"
                    }
                    1 => {
                        bad += 1;
                        "ERRORS"
                    }
                    _ => {
                        undecided += 1;
                        "undecided"
                    }
                };
                let _ = writeln!(s, "{}", row(&name, engine, r, verdict));
                if *code == 1 {
                    finding_details(&mut details, &name, r);
                }
            }
        }
    }
    let _ = writeln!(
        s,
        "\n{well} well-formed, {bad} with errors, {undecided} undecided, {failed} without a \
         report.\n"
    );
    if !details.is_empty() {
        let _ = writeln!(s, "## Errors and the moves that show them\n\n{details}");
    }
    s
}

fn row(name: &str, engine: &str, r: &Value, verdict: &str) -> String {
    let n = |k: &str| r[k].as_u64().unwrap_or(0);
    let mode = r["mode"].as_str().unwrap_or("?");
    let states = match mode {
        "exhaustive" => format!("{}", n("states")),
        _ => format!(
            "{} in {:.1} s + {} in {} playouts",
            n("states"),
            r["explore_seconds"].as_f64().unwrap_or(0.0),
            n("sampled_states"),
            n("playouts")
        ),
    };
    let value = match r["value"].as_array() {
        Some(v) => v.iter().map(Value::to_string).collect::<Vec<_>>().join("/"),
        None => String::new(),
    };
    let findings: Vec<String> = r["findings"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|f| {
            let role = f["role"]
                .as_str()
                .map_or(String::new(), |r| format!("[{r}]"));
            format!("{}{role}×{}", f["code"].as_str().unwrap_or("?"), f["count"])
        })
        .collect();
    let depth = n("depth");
    format!(
        "| {name} | {engine} | {mode} | {states} | {depth} | {value} | {} | {verdict} |",
        findings.join(", ")
    )
}

fn finding_details(s: &mut String, name: &str, r: &Value) {
    let _ = writeln!(s, "### {name}\n");
    let roles: Vec<&str> = r["roles"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|r| r["name"].as_str().unwrap_or("?"))
        .collect();
    for f in r["findings"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
    {
        if f["severity"] != "error" {
            continue;
        }
        let role = f["role"]
            .as_str()
            .map_or(String::new(), |r| format!("role {r}: "));
        let _ = writeln!(
            s,
            "- `{}` {role}{}",
            f["code"].as_str().unwrap_or("?"),
            f["detail"].as_str().unwrap_or("")
        );
        let path = f["path"].as_array().map(Vec::as_slice).unwrap_or_default();
        let cycle = f["cycle"].as_array().map(Vec::as_slice).unwrap_or_default();
        match f["shown"].as_str() {
            Some("initial-state") => {
                let _ = writeln!(s, "  in the initial state (no move leads to it)");
                continue;
            }
            Some("whole-graph") => {
                let _ = writeln!(s, "  of the whole reachable graph: no one state shows it");
                continue;
            }
            Some("long-playout") => {
                let _ = writeln!(s, "  in a random playout, whose moves are not kept");
                continue;
            }
            _ => {}
        }
        let mut moves = Vec::new();
        for joint in path.iter().chain(cycle).take(SHOWN_MOVES) {
            let j = joint.as_array().map(Vec::as_slice).unwrap_or_default();
            let does: Vec<String> = roles
                .iter()
                .zip(j)
                .map(|(r, m)| format!("(does {r} {})", m.as_str().unwrap_or("?")))
                .collect();
            moves.push(does.join(" "));
        }
        let total = path.len() + cycle.len();
        let more = if total > SHOWN_MOVES {
            format!(" … ({} more)", total - SHOWN_MOVES)
        } else {
            String::new()
        };
        let what = if f["shown"] == "move" {
            format!("along the last of {} joint moves", path.len())
        } else if cycle.is_empty() {
            format!("after {} joint moves", path.len())
        } else {
            format!(
                "a cycle: {} joint moves, then {} round it",
                path.len(),
                cycle.len()
            )
        };
        let _ = writeln!(s, "  {what}: `{}`{more}", moves.join(" · "));
    }
    let _ = writeln!(s);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejection_shows_its_first_error() {
        let v = serde_json::json!({"game": "g", "rejected": [
            {"code": "singleton", "severity": "warning", "message": "w"},
            {"code": "function-arity", "severity": "error", "message": "the function `a` ..."},
        ], "exit_status": 1});
        assert_eq!(
            rejection(&v),
            "rejected: [function-arity] the function `a` ... (and 1 more)"
        );
    }

    #[test]
    fn every_error_says_where_it_shows() {
        let finding = |code: &str, shown: &str, path: Value| {
            serde_json::json!({"code": code, "severity": "error", "role": "x", "detail": "d",
                "count": 1, "shown": shown, "path": path, "cycle": []})
        };
        let r = serde_json::json!({"roles": [{"name": "x"}], "findings": [
            finding("several-goals", "initial-state", serde_json::json!([])),
            finding("not-weakly-winnable", "whole-graph", serde_json::json!([])),
            finding("no-legal-move", "state", serde_json::json!([["(m 1)"]])),
        ]});
        let mut s = String::new();
        finding_details(&mut s, "c/g", &r);
        let lines: Vec<&str> = s.lines().collect();
        assert_eq!(
            lines,
            [
                "### c/g",
                "",
                "- `several-goals` role x: d",
                "  in the initial state (no move leads to it)",
                "- `not-weakly-winnable` role x: d",
                "  of the whole reachable graph: no one state shows it",
                "- `no-legal-move` role x: d",
                "  after 1 joint moves: `(does x (m 1))`",
                "",
            ]
        );
    }
}
