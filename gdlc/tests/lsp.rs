//! `gdlc lsp` driven over its standard input and output by a test client: the conversation
//! (initialize, documents opened and edited, every request the server offers, the commands,
//! shutdown and exit) and bad input (garbage, truncated and malformed messages, unknown
//! methods, requests before initialize, a 50 MB document) answered without a crash.

mod lsp_client;

use lsp_client::{Client, position, range};
use serde_json::{Value, json};

/// A small game with a misspelt state fact (`cel`).
const MISSPELT: &str = "(role x)
(init (cell 1 b))
(<= (legal x (mark ?c)) (true (cell ?c b)))
(<= (next (cell ?c x)) (does x (mark ?c)))
(<= terminal (true (cel 1 x)))
(goal x 100)
";

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap_or("?"))
        .collect()
}

fn tictactoe() -> String {
    std::fs::read_to_string(gdl_tests::example("ticTacToe.kif")).expect("the example")
}

#[test]
fn diagnostics_follow_the_edits_with_quick_fixes() {
    let (mut c, capabilities) = Client::initialized();
    assert_eq!(capabilities["textDocumentSync"], json!(1));
    let uri = "file:///games/misspelt.kif";
    c.open(uri, "gdl", 1, MISSPELT);
    let d = c.diagnostics(uri, 1);
    assert_eq!(codes(&d), ["true-never-holds"], "{d:#?}");
    assert_eq!(d[0]["range"], range((4, 19), (4, 28)));
    assert_eq!(d[0]["severity"], json!(2));
    assert_eq!(d[0]["source"], json!("gdlc"));
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap()
            .ends_with("note: did you mean `cell`?"),
        "{}",
        d[0]["message"]
    );

    // The quick fix replaces the name.
    let actions = c.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": uri}, "range": range((4, 20), (4, 20)),
               "context": {"diagnostics": []}}),
    );
    assert_eq!(actions.as_array().map(Vec::len), Some(1), "{actions}");
    assert_eq!(actions[0]["title"], "Replace `cel` with `cell`");
    assert_eq!(actions[0]["kind"], "quickfix");
    assert_eq!(
        actions[0]["edit"]["changes"][uri],
        json!([{"range": range((4, 20), (4, 23)), "newText": "cell"}])
    );

    // An edit: an unsafe variable (an error) and two arities of one relation (with the
    // other arity as a related location).
    let edited = MISSPELT.replace("(cel 1 x)", "(cell 1 x)").replace(
        "(goal x 100)",
        "(<= (goal x 100) (p ?y) (distinct ?z 1))\n(p 1)\n(p 1 2)",
    );
    c.change(uri, 2, &edited);
    let d = c.diagnostics(uri, 2);
    assert_eq!(codes(&d), ["unsafe-variable", "relation-arity"], "{d:#?}");
    assert_eq!(d[0]["severity"], json!(1));
    assert_eq!(d[1]["range"], range((7, 1), (7, 2)));
    let related = &d[1]["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], uri);
    assert_eq!(related["location"]["range"], range((5, 18), (5, 19)));

    // A syntax error: reported, with the findings about single rules of what did parse, and
    // none about the rules the error cut away (no missing `terminal`).
    let broken = "(role x)\n(<= (legal x a) (true (q ?z)) (not (r ?w)))\n(<= terminal (true p)\n";
    c.change(uri, 3, broken);
    let d = c.diagnostics(uri, 3);
    assert_eq!(codes(&d), ["unsafe-variable", "syntax"], "{d:#?}");
    assert_eq!(d[1]["range"]["start"], json!({"line": 2, "character": 0}));
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn stale_versions_are_not_published() {
    let (mut c, _) = Client::initialized();
    let uri = "file:///games/fast.kif";
    c.open(uri, "gdl", 1, MISSPELT);
    // Many versions at once: the last one is published, and versions never go back.
    for v in 2..=30 {
        let text = if v == 30 {
            MISSPELT.replace("cel ", "cell ")
        } else {
            MISSPELT.to_string()
        };
        c.change(uri, v, &text);
    }
    let last = c.diagnostics(uri, 30);
    assert!(last.is_empty(), "{last:#?}");
    let hover = c.request(
        "textDocument/hover",
        json!({"textDocument": {"uri": uri}, "position": {"line": 4, "character": 21}}),
    );
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .starts_with("**function** `cell`, arity 2"),
        "{hover}"
    );
    assert_eq!(c.shutdown(), Some(0));
}
