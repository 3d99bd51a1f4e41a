//! Every game of the corpus parses without syntax errors.
use std::path::PathBuf;

fn corpus() -> PathBuf {
    PathBuf::from(std::env::var("GDL_CORPUS").unwrap_or_else(|_| "../../shared".into()))
}

#[test]
fn every_corpus_game_parses() {
    let mut n = 0;
    for dir in ["games/ggp-repository", "games/ggp-base-tests"] {
        for entry in std::fs::read_dir(corpus().join(dir)).expect("corpus present") {
            let path = entry.unwrap().path();
            let bytes = std::fs::read(&path).unwrap();
            let text = String::from_utf8_lossy(&bytes);
            let (prog, diags) = gdlc::parse_kif(&text);
            let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
            assert!(errors.is_empty(), "{}: {:?}", path.display(), errors);
            assert!(!prog.rules.is_empty());
            n += 1;
        }
    }
    assert!(n > 280, "only {n} games");
}
