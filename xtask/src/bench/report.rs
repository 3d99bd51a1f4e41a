//! The Markdown of `cargo xtask bench`.

use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use super::numbers::{rate, thousands};
use super::{Args, Comparison, CompiledRun, Line, Measured, Round, Rounds};
use crate::common;

/// The line after which `BENCHMARKS.md` holds sections measured by other commands (the
/// players); a regenerated report keeps them.
pub(crate) const KEPT_MARKER: &str =
    "<!-- Sections below are measured by the commands they give; cargo xtask bench keeps them. -->";

/// `report`, followed by what the file at `path` holds from [`KEPT_MARKER`] on.
pub fn keep_hand_written(path: &Path, mut report: String) -> String {
    if let Ok(old) = std::fs::read_to_string(path)
        && let Some(i) = old.find(KEPT_MARKER)
    {
        report.push('\n');
        report.push_str(&old[i..]);
    }
    report
}

pub fn report(
    m: &Measured,
    large: &[String],
    args: &Args,
    elapsed: Duration,
    load_before: Option<String>,
) -> String {
    let mut s = String::from("# Benchmarks\n\n");
    let _ = writeln!(
        s,
        "Random playouts per second of the code gdlc generates (`compiled`) and of the reference \
         interpreter (`interpreted`), with the benchmark loop of `gdl_tools::bench`: single \
         thread, {} s per game and engine, one uniform random draw per role per step; states are \
         steps + 1 per playout. Compiled crates use the release profile of `gdlc build`, built for this \
         machine's processor as `gdlc bench` builds them (`target-cpu=native` without AVX-512; \
         the hand-written simulators too). \
         Regenerate everything above the players' sections with:\n\n\
         ```sh\ncargo xtask bench --seconds {} --out BENCHMARKS.md\n```\n\n\
         Machine: {} cores ({}); load average before {}, after {} (the machine is shared: \
         expect 10-20% noise, more under load; ratios within one run are what counts). The run \
         took {:.0} s.\n",
        args.seconds,
        args.seconds,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        cpu_model(),
        load_before.unwrap_or_else(|| "?".into()),
        common::load_average().unwrap_or_else(|| "?".into()),
        elapsed.as_secs_f64()
    );
    main_table(&mut s, m);
    peers_table(&mut s, m);
    limit_table(&mut s, m);
    threads_table(&mut s, m);
    if !m.validation.is_empty() {
        super::validation::table(&mut s, &m.validation, m.threads);
    }
    large_table(&mut s, m, large);
    if !m.comparisons.is_empty() {
        backends_table(&mut s, &m.comparisons);
    }
    s
}

fn seconds(t: Option<(f64, Option<u64>)>, digits: usize) -> String {
    t.map_or(String::new(), |(t, _)| format!("{t:.digits$}"))
}

fn peak(t: Option<(f64, Option<u64>)>) -> String {
    t.map_or(String::new(), |(_, m)| mib(m))
}

/// The cells of a compiled run's cost: backend, Rust bytes, gdlc seconds and peak MiB, rustc
/// seconds and peak MiB.
fn compile_cells(c: &CompiledRun) -> String {
    format!(
        "{} | {} | {} | {} | {} | {}",
        c.backend,
        thousands(c.rust_bytes as u64),
        seconds(c.gdlc, 2),
        peak(c.gdlc),
        seconds(c.rustc, 1),
        peak(c.rustc),
    )
}

fn main_table(s: &mut String, m: &Measured) {
    s.push_str(
        "| game | compiled po/s | interpreted po/s | ratio | compiled states/s | interpreted \
         states/s | avg goals (compiled) | backend | Rust bytes | gdlc s | gdlc MiB | rustc s | \
         rustc MiB |\n|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|\n",
    );
    for r in &m.rows {
        let (cp, cs, goals) = match &r.compiled.result {
            Ok(l) => (
                rate(l.playouts_per_sec),
                rate(l.states_per_sec),
                l.goals.clone(),
            ),
            Err(e) => (format!("failed: {e}"), String::new(), String::new()),
        };
        let (ip, is) = match &r.interpreted {
            Ok(l) => (rate(l.playouts_per_sec), rate(l.states_per_sec)),
            Err(e) => (format!("failed: {e}"), String::new()),
        };
        let ratio = match (&r.compiled.result, &r.interpreted) {
            (Ok(c), Ok(i)) if i.playouts_per_sec > 0.0 => {
                format!("{:.0}x", c.playouts_per_sec / i.playouts_per_sec)
            }
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "| {} | {cp} | {ip} | {ratio} | {cs} | {is} | {goals} | {} |",
            r.name,
            compile_cells(&r.compiled)
        );
    }
}

fn peers_table(s: &mut String, m: &Measured) {
    s.push_str(
        "\n## Against the propnet engines\n\n\
         ggplib (C++ propnet, the fastest published GDL engine) and Sancho (Java propnet) as \
         `spec/performance.md` of the corpus gives them: measured on this kind of machine with \
         the same loop (median of 3 runs of 10 s; \"best\" is the highest rate either reached in \
         any of four runs), beside the compiled code of this run. The target is at least 2x the \
         best peer on every game, the goal beyond it 4x.\n\n",
    );
    let peers = match &m.peers {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(s, "No peer rates: {e}.");
            return;
        }
    };
    s.push_str(
        "The compiled rate is per second of wall-clock time, as the peers' are; on a loaded \
         machine the loop also waits for a CPU, so the rate per second of its CPU time (what \
         it would reach alone on a core) is given too, with its ratio.\n\n\
         | game | compiled po/s | per CPU s | ggplib po/s | Sancho po/s | best peer po/s | \
         compiled / best peer | per CPU s / best peer | >= 2x |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---|\n",
    );
    let mut reached = 0;
    let mut reached_cpu = 0;
    for p in peers {
        let compiled = m
            .rows
            .iter()
            .find(|r| r.name == p.game)
            .map(|r| &r.compiled.result);
        let (cp, cpu, ratio, ratio_cpu, ok) = match compiled {
            Some(Ok(l)) => {
                let x = l.playouts_per_sec / p.best;
                reached += usize::from(x >= 2.0);
                let x_cpu = l.playouts_per_cpu_sec.map(|c| c / p.best);
                reached_cpu += usize::from(x_cpu.is_some_and(|x| x >= 2.0));
                (
                    rate(l.playouts_per_sec),
                    l.playouts_per_cpu_sec.map_or(String::new(), rate),
                    format!("{x:.2}x"),
                    x_cpu.map_or(String::new(), |x| format!("{x:.2}x")),
                    match (x >= 2.0, x_cpu.is_some_and(|x| x >= 2.0)) {
                        (true, _) => "yes",
                        (false, true) => "per CPU s",
                        (false, false) => "no",
                    },
                )
            }
            Some(Err(e)) => (
                format!("failed: {e}"),
                String::new(),
                String::new(),
                String::new(),
                "no",
            ),
            None => (
                "not measured".into(),
                String::new(),
                String::new(),
                String::new(),
                "",
            ),
        };
        let _ = writeln!(
            s,
            "| {} | {cp} | {cpu} | {} | {} | {} | {ratio} | {ratio_cpu} | {ok} |",
            p.game,
            rate(p.ggplib),
            rate(p.sancho),
            rate(p.best)
        );
    }
    let _ = writeln!(
        s,
        "\n{reached} of {} games at 2x the best peer or more; {reached_cpu} per CPU second.",
        peers.len()
    );
}

fn limit_table(s: &mut String, m: &Measured) {
    s.push_str(
        "\n## Against hand-written code\n\n\
         The hand-written bitboard simulators of the corpus (`bench/limit`: lto, one codegen \
         unit), the practical limit, built and run in this run: each round runs the compiled \
         game, then the simulator, for the same seconds. The target is at least 0.5x.\n\n\
         | game | round | compiled po/s | hand-written po/s | ratio |\n|---|---:|---:|---:|---:|\n",
    );
    rounds_rows(s, &m.limit, "Median ratio", |r| {
        ratio_of(&r.first, &r.second)
    });
}

fn threads_table(s: &mut String, m: &Measured) {
    let _ = write!(
        s,
        "\n## The benchmark loop on several threads\n\n\
         `BIN bench --threads N` of the compiled games (each thread its own seed, counts summed), \
         1 thread and {n} alternating. On a shared machine the speed-up only measures what \
         the other work leaves.\n\n\
         | game | round | 1 thread po/s | {n} threads po/s | speed-up |\n\
         |---|---:|---:|---:|---:|\n",
        n = m.threads
    );
    rounds_rows(s, &m.scaling, "Median speed-up", |r| {
        ratio_of(&r.second, &r.first)
    });
}

/// One row per round (both rates and `ratio`), then a line with the median ratio per game.
fn rounds_rows(
    s: &mut String,
    games: &Rounds,
    median_label: &str,
    ratio: impl Fn(&Round) -> Option<f64>,
) {
    let mut summary = Vec::new();
    for (game, rounds) in games {
        let rounds = match rounds {
            Ok(r) => r,
            Err(e) => {
                let _ = writeln!(s, "| {game} | | failed: {e} | | |");
                continue;
            }
        };
        let mut ratios = Vec::new();
        for (i, r) in rounds.iter().enumerate() {
            let x = ratio(r);
            ratios.extend(x);
            let _ = writeln!(
                s,
                "| {game} | {} | {} | {} | {} |",
                i + 1,
                po(&r.first),
                po(&r.second),
                x.map_or(String::new(), |x| format!("{x:.2}x"))
            );
        }
        if let Some(x) = median(&mut ratios) {
            summary.push(format!("{game} {x:.2}x"));
        }
    }
    if !summary.is_empty() {
        let _ = writeln!(s, "\n{median_label}: {}.", summary.join(", "));
    }
}

fn large_table(s: &mut String, m: &Measured, large: &[String]) {
    if !m.rows.iter().any(|r| large.contains(&r.name)) {
        return;
    }
    s.push_str(
        "\n## Compile time and peak memory of the largest games\n\n\
         gdlc: `gdlc::compile` (its own clock; peak resident memory of the process). rustc: \
         `cargo build --release` of the game's crate, gdl-runtime already built (wall clock; \
         peak resident memory of the largest process). The games: those of the corpus with \
         the most Rust and the longest gdlc times (CORPUS.md has gdlc's figures for every \
         game), and three of the table above. The target is gdlc under 10 s and rustc under \
         60 s for every corpus game.\n\n\
         | game | backend | Rust bytes | gdlc s | gdlc peak MiB | rustc s | rustc peak MiB | status |\n\
         |---|---|---:|---:|---:|---:|---:|---|\n",
    );
    for r in m.rows.iter().filter(|r| large.contains(&r.name)) {
        let status = match &r.compiled.result {
            Ok(_) => "ok".to_string(),
            Err(e) => format!("failed: {e}"),
        };
        let _ = writeln!(
            s,
            "| {} | {} | {status} |",
            r.name,
            compile_cells(&r.compiled)
        );
    }
}

/// The table of the games compiled with both backends.
fn backends_table(s: &mut String, comparisons: &[Comparison]) {
    s.push_str(
        "\n## The two backends\n\n\
         The same games compiled with each backend: `inline` (straight-line Rust per output, \
         chunked into `#[inline(never)]` functions when large) and `propnet` (the circuit as \
         tables for the incremental engine of `gdl_propnet`). `auto`, the default, \
         picks one by a cost model per state; rustc is `cargo build --release` of the game's \
         crate (gdl-runtime already built).\n\n\
         | game | inline po/s | propnet po/s | auto picks | inline Rust bytes | inline rustc s \
         | inline rustc peak MiB | propnet rustc s |\n\
         |---|---:|---:|---|---:|---:|---:|---:|\n",
    );
    let po = |r: &CompiledRun| po(&r.result);
    for c in comparisons {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            c.name,
            po(&c.inline),
            po(&c.propnet),
            c.auto,
            thousands(c.inline.rust_bytes as u64),
            seconds(c.inline.rustc, 1),
            peak(c.inline.rustc),
            seconds(c.propnet.rustc, 1),
        );
    }
}

/// Playouts per second of a run, or why there are none.
fn po(r: &Result<Line, String>) -> String {
    match r {
        Ok(l) => rate(l.playouts_per_sec),
        Err(e) => format!("failed: {e}"),
    }
}

/// `a / b` in playouts per second, when both ran.
fn ratio_of(a: &Result<Line, String>, b: &Result<Line, String>) -> Option<f64> {
    match (a, b) {
        (Ok(a), Ok(b)) if b.playouts_per_sec > 0.0 => Some(a.playouts_per_sec / b.playouts_per_sec),
        _ => None,
    }
}

/// The median (the lower middle one of an even count).
fn median(xs: &mut [f64]) -> Option<f64> {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len().saturating_sub(1) / 2).copied()
}

fn mib(kib: Option<u64>) -> String {
    kib.map_or("n/a".into(), |k| format!("{}", k / 1024))
}

pub(crate) fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_ratios() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0]), Some(1.0));
        assert_eq!(median(&mut []), None);
        let line = |p: f64| {
            Ok(Line {
                playouts_per_sec: p,
                ..Line::default()
            })
        };
        assert_eq!(ratio_of(&line(3.0), &line(2.0)), Some(1.5));
        assert_eq!(ratio_of(&line(3.0), &Err("x".into())), None);
        assert_eq!(ratio_of(&line(3.0), &line(0.0)), None);
    }
}
