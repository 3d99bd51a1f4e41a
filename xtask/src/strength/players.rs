//! The players of `cargo xtask strength`: one `gdlc play GAME --port P --threads 1 FLAGS`
//! process per seat, pinned to a core with `taskset` when it can be; waiting until it listens;
//! killed when dropped (at the end, on an error, on a panic). Ctrl-C reaches them anyway: they
//! are in the terminal's process group.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::Variant;

/// How the players are placed on the processor's cores.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pinning {
    /// `taskset -c K`, K taken in turn from the machine's `cores`.
    Cores(usize),
    /// No pinning, and why.
    None(String),
}

impl Pinning {
    /// `taskset` when there is one and the machine has two cores or more.
    pub fn detect() -> Pinning {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        if cores < 2 {
            return Pinning::None(format!("{cores} core: the players share it"));
        }
        let taskset = Command::new("taskset")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        match taskset {
            Ok(s) if s.success() => Pinning::Cores(cores),
            _ => Pinning::None("no taskset: the players are not pinned to cores".into()),
        }
    }

    /// The cores (a `taskset -c` list) of the `k`-th player process of a game (from 0) whose
    /// matches have `busy` players searching at once (one per role: each searches through
    /// every play clock, its turn or not). With no more of them than cores, each its own core,
    /// in turn; with more, every player on all the cores, which the scheduler then shares
    /// equally (pinned in turn, two on a core would get half the time of one alone: equal
    /// time per move is what the benchmark compares).
    pub fn cores(&self, k: usize, busy: usize) -> Option<String> {
        match self {
            Pinning::Cores(n) if busy <= *n => Some((k % n).to_string()),
            Pinning::Cores(n) => Some(format!("0-{}", n - 1)),
            Pinning::None(_) => None,
        }
    }

    /// How the `busy` players of a match are placed.
    pub fn describe(&self, busy: usize) -> String {
        match self {
            Pinning::Cores(n) if busy <= *n => {
                format!("each player pinned to its own core (taskset, {n} cores)")
            }
            Pinning::Cores(n) => format!(
                "{busy} players of a match sharing {n} cores (taskset -c 0-{}): equal shares \
                 of the cores, none alone on one",
                n - 1
            ),
            Pinning::None(why) => why.clone(),
        }
    }
}

/// A running player: its process and its address.
pub struct Player {
    child: Child,
    pub port: u16,
    /// The variant it plays (index into the variants).
    pub variant: usize,
    /// Where its standard output and error go.
    pub log: PathBuf,
}

impl Player {
    pub fn address(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }
}

impl Drop for Player {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What starting a player needs.
pub struct Launch<'a> {
    pub gdlc: &'a Path,
    pub kif: &'a Path,
    /// Flags of every variant, before the variant's own.
    pub common: &'a [String],
    /// The directory of the players' logs.
    pub logs: &'a Path,
    /// How long to wait for a player to listen.
    pub ready_timeout: Duration,
}

/// A port nobody listens on now.
fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .map_err(|e| format!("no free port: {e}"))
}

/// The arguments of `gdlc` for one player.
pub fn play_args(kif: &Path, port: u16, common: &[String], variant: &Variant) -> Vec<String> {
    let mut args = vec![
        "play".to_string(),
        kif.display().to_string(),
        "--port".into(),
        port.to_string(),
        "--bind".into(),
        "127.0.0.1".into(),
        "--threads".into(),
        "1".into(),
    ];
    args.extend(common.iter().cloned());
    args.extend(variant.flags.iter().cloned());
    args
}

/// Starts the player of `variant` (index `index` into the variants) on `core`, and waits until
/// it listens.
pub fn start(
    launch: &Launch,
    variant: &Variant,
    index: usize,
    cores: Option<String>,
    tag: &str,
) -> Result<Player, String> {
    let port = free_port()?;
    let args = play_args(launch.kif, port, launch.common, variant);
    let mut cmd = match cores {
        Some(list) => {
            let mut c = Command::new("taskset");
            c.arg("-c").arg(list).arg(launch.gdlc);
            c
        }
        None => Command::new(launch.gdlc),
    };
    cmd.args(&args);
    let log = launch.logs.join(format!("{tag}.log"));
    let file =
        std::fs::File::create(&log).map_err(|e| format!("cannot create {}: {e}", log.display()))?;
    let err = file
        .try_clone()
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(file))
        .stderr(Stdio::from(err));
    let child = cmd
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", launch.gdlc.display()))?;
    let mut player = Player {
        child,
        port,
        variant: index,
        log,
    };
    wait_listening(&mut player, launch.ready_timeout).map_err(|e| {
        format!(
            "player `{}` ({} {}): {e}{}",
            variant.name,
            launch.gdlc.display(),
            args.join(" "),
            log_tail(&player.log)
        )
    })?;
    Ok(player)
}

/// Waits until `player` accepts a connection, it exits, or `timeout` passes.
fn wait_listening(player: &mut Player, timeout: Duration) -> Result<(), String> {
    let start = Instant::now();
    let address = ([127, 0, 0, 1], player.port).into();
    loop {
        if TcpStream::connect_timeout(&address, Duration::from_millis(200)).is_ok() {
            return Ok(());
        }
        if let Ok(Some(status)) = player.child.try_wait() {
            return Err(format!("exited ({status}) before listening"));
        }
        if start.elapsed() > timeout {
            return Err(format!(
                "not listening after {} s",
                timeout.as_secs_f64().round()
            ));
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// The last lines of a log, as `: ...` (empty when there are none).
fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let tail = &lines[lines.len().saturating_sub(5)..];
    if tail.is_empty() {
        String::new()
    } else {
        format!(": {}", tail.join(" | "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cores_are_taken_in_turn_or_shared_by_more_players_than_cores() {
        let p = Pinning::Cores(2);
        let cores = |busy| (0..4).map(|k| p.cores(k, busy)).collect::<Vec<_>>();
        let one = |k: &str| Some(k.to_string());
        assert_eq!(cores(2), [one("0"), one("1"), one("0"), one("1")]);
        assert_eq!(cores(3), [one("0-1"), one("0-1"), one("0-1"), one("0-1")]);
        assert_eq!(Pinning::None("x".into()).cores(0, 2), None);
        assert!(p.describe(3).contains("sharing 2 cores"));
        assert!(p.describe(2).contains("own core"));
    }

    #[test]
    fn a_player_command_line_ends_with_the_variant_flags() {
        let v = Variant {
            name: "new".into(),
            flags: vec!["--exploration".into(), "0.7".into()],
        };
        let args = play_args(Path::new("g.kif"), 9000, &["--margin=0.5".into()], &v);
        assert_eq!(
            args,
            [
                "play",
                "g.kif",
                "--port",
                "9000",
                "--bind",
                "127.0.0.1",
                "--threads",
                "1",
                "--margin=0.5",
                "--exploration",
                "0.7"
            ]
        );
    }
}
