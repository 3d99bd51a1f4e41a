//! The peers' rates: ggplib (the C++ propnet engine) and Sancho (the Java propnet player),
//! measured on this project's machines with the same loop, as `spec/performance.md` of the
//! corpus gives them (the table under "On this project's machines"). They are read from there
//! at run time rather than copied here, so the report shows the figures the goal is set by.

use std::path::Path;

/// One game's peer rates, playouts per second.
#[derive(Clone, Debug, PartialEq)]
pub struct Peer {
    pub game: String,
    pub ggplib: f64,
    pub sancho: f64,
    /// The highest rate either peer reached in any run.
    pub best: f64,
}

/// The heading of the table read.
const SECTION: &str = "## On this project's machines";

/// Reads the peers' table of `$GDL_CORPUS/spec/performance.md`.
pub fn read(corpus: &Path) -> Result<Vec<Peer>, String> {
    let path = corpus.join("spec/performance.md");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let peers = parse(&text);
    if peers.is_empty() {
        return Err(format!(
            "{} has no table of peer rates under `{SECTION}`",
            path.display()
        ));
    }
    Ok(peers)
}

/// The rows of the first table after [`SECTION`] whose header names ggplib and Sancho: game,
/// ggplib, Sancho and best rates (numbers with thousands separators).
pub fn parse(text: &str) -> Vec<Peer> {
    let Some(start) = text.find(SECTION) else {
        return Vec::new();
    };
    let mut peers = Vec::new();
    let mut in_table = false;
    for line in text[start..].lines().skip(1) {
        if line.starts_with("## ") {
            break;
        }
        let cells: Vec<&str> = line
            .trim()
            .trim_matches('|')
            .split('|')
            .map(str::trim)
            .collect();
        if !line.trim_start().starts_with('|') {
            if in_table {
                break;
            }
            continue;
        }
        if !in_table {
            in_table = cells.iter().any(|c| c.contains("ggplib"))
                && cells.iter().any(|c| c.contains("Sancho"));
            continue;
        }
        let number = |i: usize| -> Option<f64> { cells.get(i)?.replace(',', "").parse().ok() };
        if let (Some(game), Some(ggplib), Some(sancho)) = (cells.first(), number(1), number(2)) {
            let best = number(3).unwrap_or(ggplib.max(sancho));
            peers.push(Peer {
                game: game.to_string(),
                ggplib,
                sancho,
                best,
            });
        }
    }
    peers
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_table_of_this_projects_machines() {
        let text = "# Speed\n\n## Published figures\n\n| game | ggplib | Sancho |\n|---|---|---|\n\
                    | ticTacToe | 376,827 | 137,234 |\n\n\
                    ## On this project's machines (2 cores)\n\nMeasured here.\n\n\
                    | game | ggplib (C++ propnet) | Sancho 1.61c (Java propnet) | best peer po/s | \
                    ratio |\n|---|---:|---:|---:|---:|\n\
                    | ticTacToe | 582,355 | 242,691 | 582,355 | 5.9x |\n\
                    | reversi | 2,043 | 2,107 | 2,107 | 3.4x |\n\nAfter the table.\n\
                    | not | 1 | 2 | 3 |\n";
        let peers = parse(text);
        assert_eq!(
            peers,
            vec![
                Peer {
                    game: "ticTacToe".into(),
                    ggplib: 582_355.0,
                    sancho: 242_691.0,
                    best: 582_355.0
                },
                Peer {
                    game: "reversi".into(),
                    ggplib: 2_043.0,
                    sancho: 2_107.0,
                    best: 2_107.0
                },
            ]
        );
        assert!(parse("no such section").is_empty());
    }

    #[test]
    fn reads_the_corpus_spec_when_there_is_one() {
        let corpus = gdl_tests::corpus_dir();
        if !corpus.join("spec/performance.md").is_file() {
            eprintln!("no corpus: nothing to read");
            return;
        }
        let peers = read(&corpus).unwrap();
        assert!(peers.iter().any(|p| p.game == "connectFour"), "{peers:?}");
        assert!(peers.iter().all(|p| p.best >= p.ggplib.max(p.sancho) * 0.5));
    }
}
