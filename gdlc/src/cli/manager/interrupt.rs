//! Ctrl-C (SIGINT): the first one asks the running matches to stop (they send ABORT to their
//! remote players and write their records with `isAborted`); a second one ends the process at
//! once with exit code 130. The records on disk are complete either way (they are written
//! atomically).

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The exit code of an interrupted command (128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Whether Ctrl-C was pressed.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// Catches Ctrl-C from now on (instead of the default, which ends the process), on `runtime`.
pub fn install(runtime: &tokio::runtime::Runtime) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        // Registered here, before this returns: a SIGINT from now on is caught.
        let mut interrupts = runtime.block_on(async { signal(SignalKind::interrupt()) })?;
        runtime.spawn(async move {
            while interrupts.recv().await.is_some() {
                on_interrupt();
            }
        });
    }
    #[cfg(not(unix))]
    runtime.spawn(async {
        while tokio::signal::ctrl_c().await.is_ok() {
            on_interrupt();
        }
    });
    Ok(())
}

fn on_interrupt() {
    if REQUESTED.swap(true, Ordering::SeqCst) {
        eprintln!("interrupted again: exiting now");
        std::process::exit(i32::from(EXIT_INTERRUPTED));
    }
    eprintln!("interrupted: aborting (Ctrl-C again to exit at once)");
}

/// Completes when Ctrl-C is pressed.
pub async fn wait() {
    while !requested() {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
