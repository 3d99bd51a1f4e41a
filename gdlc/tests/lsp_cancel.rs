//! `gdlc lsp` and a request cancelled while it is being computed: the validation of
//! connect four, which samples for its whole budget (10 s), is cancelled after it started.
//! The reply `RequestCancelled` comes at once, the validation stops (the server stays idle),
//! and the answer computed later is dropped.
//! (Requests cancelled while queued: `lsp.rs`.)

mod lsp_client;

use std::time::{Duration, Instant};

use lsp_client::{Client, cancel, request};
use serde_json::{Value, json};

#[test]
fn a_running_request_is_cancelled_at_once_and_its_late_answer_dropped() {
    let text = std::fs::read_to_string(gdl_tests::example("connectFour.kif")).expect("example");
    let uri = "file:///examples/connectFour.kif";
    let (mut c, _) = Client::initialized();
    c.open(uri, "gdl", 1, &text);
    assert!(c.diagnostics(uri, 1).is_empty());

    let sent = Instant::now();
    c.send(&request(
        json!(3001),
        "workspace/executeCommand",
        json!({"command": "gdlc.validate", "arguments": [uri]}),
    ));
    // The document is analysed: the validation starts on its thread right away.
    std::thread::sleep(Duration::from_millis(500));
    c.send(&cancel(json!({"id": 3001})));
    let r = c.wait_for(|m| m["id"] == json!(3001));
    assert_eq!(r["error"]["code"], json!(-32800), "{r}");
    // Long before the validation's 10 s are over.
    assert!(
        sent.elapsed() < Duration::from_secs(8),
        "{:?}",
        sent.elapsed()
    );

    // The validation stopped: the server uses next to no processor time while the
    // validation would have gone on (about a second of it at the least on a busy machine).
    std::thread::sleep(Duration::from_millis(300));
    if let Some(before) = c.cpu_seconds() {
        std::thread::sleep(Duration::from_secs(3));
        let used = c.cpu_seconds().unwrap_or(before) - before;
        assert!(used < 0.5, "{used} s of processor time in 3 s");
    }

    // The server answers on after the validation ended.
    let symbols = json!({"textDocument": {"uri": uri}});
    let outline = c.request("textDocument/documentSymbol", symbols.clone());
    assert!(
        outline.as_array().is_some_and(|a| !a.is_empty()),
        "{outline}"
    );
    while sent.elapsed() < Duration::from_secs(6) {
        std::thread::sleep(Duration::from_millis(100));
    }
    let outline = c.request("textDocument/documentSymbol", symbols);
    assert!(
        outline.as_array().is_some_and(|a| !a.is_empty()),
        "{outline}"
    );
    // One reply to the cancelled request, no validation's diagnostics.
    let stray: Vec<Value> = c
        .take_stash()
        .into_iter()
        .filter(|m| m["id"] == json!(3001) || m["method"] == "textDocument/publishDiagnostics")
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    assert_eq!(c.shutdown(), Some(0));
}
