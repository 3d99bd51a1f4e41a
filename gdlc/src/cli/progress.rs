//! What a compilation shows on standard error: a progress bar (indicatif) fed by the library's
//! [`ProgressHook`] while it runs, only when standard error is a terminal, and with
//! `--timings` the time of each pass and the peak resident memory of this process.

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use gdlc::{CompileOptions, Compiled, Progress, ProgressHook};
use indicatif::{ProgressBar, ProgressStyle};

/// The progress bar of one compilation (none when standard error is not a terminal, or when
/// the caller wants quiet).
pub struct CompileProgress {
    bar: Option<ProgressBar>,
}

/// When a [`CompileProgress`] draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Show {
    /// When standard error is a terminal.
    OnTerminal,
    /// Never.
    Never,
}

impl CompileProgress {
    /// A progress bar labelled `name` (the game), drawn on standard error if `show` allows it.
    pub fn new(name: &str, show: Show) -> CompileProgress {
        let bar = (show == Show::OnTerminal && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(spinner_style());
            bar.set_prefix(name.to_string());
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        CompileProgress { bar }
    }

    /// Sets `options.progress` to draw on this bar (left alone when there is none).
    pub fn attach(&self, options: &mut CompileOptions) {
        if let Some(bar) = &self.bar {
            options.progress = hook(bar.clone());
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Drop for CompileProgress {
    fn drop(&mut self) {
        self.finish();
    }
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} gdlc {prefix}: {msg} [{elapsed}]")
        .unwrap_or_else(|_| ProgressStyle::default_spinner())
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} gdlc {prefix}: {msg} [{elapsed}] {bar:30} {pos}/{len}")
        .unwrap_or_else(|_| ProgressStyle::default_bar())
}

/// The hook that draws on `bar`: the pass as the message; a step with a known total as a bar,
/// one without as a count in the message.
fn hook(bar: ProgressBar) -> ProgressHook {
    // The pass running, and whether the bar shows a total now.
    let state: Mutex<(&'static str, bool)> = Mutex::new(("", false));
    ProgressHook::new(move |p| {
        let Ok(mut state) = state.lock() else { return };
        match p {
            Progress::Pass(pass) => {
                *state = (pass.name(), false);
                bar.set_style(spinner_style());
                bar.set_message(pass.name());
            }
            Progress::Step { what, done, total } if total > 0 => {
                if !state.1 {
                    state.1 = true;
                    bar.set_style(bar_style());
                    bar.set_message(format!("{}: {what}", state.0));
                }
                bar.set_length(total);
                bar.set_position(done);
            }
            Progress::Step { what, done, .. } => {
                if state.1 {
                    state.1 = false;
                    bar.set_style(spinner_style());
                }
                bar.set_message(format!("{}: {done} {what}", state.0));
            }
        }
    })
}

/// The `--timings` lines of a compilation: one per pass, the total, and the peak memory.
pub fn timings_text(name: &str, compiled: &Compiled) -> String {
    let mut out = format!("gdlc: timings of {name}:\n");
    let mut total = Duration::ZERO;
    for (pass, t) in &compiled.stats.timings {
        out.push_str(&format!("  {pass:<16} {:>8.3} s\n", t.as_secs_f64()));
        total += *t;
    }
    out.push_str(&format!(
        "  {:<16} {:>8.3} s\n",
        "total",
        total.as_secs_f64()
    ));
    out.push_str(&format!(
        "  {:<16} {} bytes of Rust, {} backend\n",
        "output",
        compiled.stats.rust_bytes,
        compiled.stats.engine_name()
    ));
    out.push_str(&peak_memory_line());
    out
}

/// `  peak memory  N MiB` (or that it is not known here).
pub fn peak_memory_line() -> String {
    match gdlc::progress::peak_memory_kib() {
        Some(kib) => format!("  {:<16} {:>8.1} MiB\n", "peak memory", kib as f64 / 1024.0),
        None => format!("  {:<16} unknown\n", "peak memory"),
    }
}
