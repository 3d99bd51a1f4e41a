//! `gdlc lsp` driven over its standard input and output by a test client: the conversation
//! (initialize, documents opened and edited, every request the server offers, the commands,
//! shutdown and exit), cancelled requests, and bad input (garbage, truncated and malformed
//! messages, unknown methods, requests before initialize, a 50 MB document) answered without
//! a crash.

mod lsp_client;

use lsp_client::{Client, cancel, position, range, request};
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
    // A request waits for the analysis of the current version, published before it is
    // answered: every publication has arrived by then.
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
    let published: Vec<(i64, usize)> = c
        .take_stash()
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .map(|m| {
            let p = &m["params"];
            (
                p["version"].as_i64().unwrap(),
                p["diagnostics"].as_array().unwrap().len(),
            )
        })
        .collect();
    assert_eq!(published.last(), Some(&(30, 0)), "{published:?}");
    assert!(
        published.windows(2).all(|w| w[0].0 < w[1].0),
        "versions only go forward: {published:?}"
    );
    assert_eq!(c.shutdown(), Some(0));
}

/// `gdlc ARGS`' standard output.
fn gdlc_output(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_gdlc"))
        .args(args)
        .output()
        .expect("gdlc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

const TICTACTOE_URI: &str = "file:///examples/ticTacToe.kif";

/// A request's parameters: the document and a position.
fn at(uri: &str, position: Value) -> Value {
    json!({"textDocument": {"uri": uri}, "position": position})
}

/// A location's range in `uri`.
fn location(uri: &str, start: Value, length: u64) -> Value {
    let end =
        json!({"line": start["line"], "character": start["character"].as_u64().unwrap() + length});
    json!({"uri": uri, "range": {"start": start, "end": end}})
}

#[test]
fn hover_definition_references_and_rename_on_tictactoe() {
    let text = tictactoe();
    let (mut c, _) = Client::initialized();
    c.open(TICTACTOE_URI, "gdl", 1, &text);
    assert!(c.diagnostics(TICTACTOE_URI, 1).is_empty());

    // A relation.
    let line_use = position(&text, "(line x)", 0, 1);
    let hover = c.request("textDocument/hover", at(TICTACTOE_URI, line_use.clone()));
    let shown = hover["contents"]["value"].as_str().unwrap();
    let first_rule = position(&text, "(<= (line ?x)", 0, 0)["line"]
        .as_u64()
        .unwrap()
        + 1;
    assert!(
        shown.starts_with("**relation** `line`, arity 1, stratum 0\n\n"),
        "{shown}"
    );
    assert!(shown.contains("depends on `true` (the state)"), "{shown}");
    assert!(
        shown.contains(&format!(
            "3 rules define it:\n- line {first_rule}: `(line ?x)`"
        )),
        "{shown}"
    );
    let end =
        json!({"line": line_use["line"], "character": line_use["character"].as_u64().unwrap() + 4});
    assert_eq!(hover["range"], json!({"start": line_use, "end": end}));
    let hover = c.request(
        "textDocument/hover",
        at(TICTACTOE_URI, position(&text, "(index 1)", 0, 1)),
    );
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("static: depends on neither"), "{shown}");

    // A variable: where it is bound.
    let x_in_row = position(&text, "(<= (row ?m ?x)", 0, 12);
    let hover = c.request("textDocument/hover", at(TICTACTOE_URI, x_in_row.clone()));
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(
        shown.starts_with("**variable** `?x`: 4 occurrences in its rule"),
        "{shown}"
    );
    assert!(shown.contains("`(true (cell ?m 1 ?x))`\n- line"), "{shown}");

    // Definition and references of a relation.
    let row_use = position(&text, "(row ?m ?x))", 0, 1);
    let row_head = position(&text, "(<= (row ?m ?x)", 0, 5);
    let found = c.request(
        "textDocument/definition",
        at(TICTACTOE_URI, row_use.clone()),
    );
    assert_eq!(found, json!([location(TICTACTOE_URI, row_head.clone(), 3)]));
    let mut params = at(TICTACTOE_URI, row_use.clone());
    params["context"] = json!({"includeDeclaration": false});
    let found = c.request("textDocument/references", params);
    assert_eq!(found, json!([location(TICTACTOE_URI, row_use.clone(), 3)]));
    // A function: every `(cell ...)`, 16 of them in heads (init, base, next).
    let cell = position(&text, "(cell ?x ?y b)", 0, 1);
    let mut params = at(TICTACTOE_URI, cell.clone());
    params["context"] = json!({"includeDeclaration": true});
    let all = c.request("textDocument/references", params.clone());
    assert_eq!(
        all.as_array().unwrap().len(),
        text.matches("(cell ").count()
    );
    params["context"] = json!({"includeDeclaration": false});
    let uses = c.request("textDocument/references", params);
    assert_eq!(
        uses.as_array().unwrap().len(),
        text.matches("(cell ").count() - 16
    );

    // Rename: a relation everywhere, a variable within its rule; not a keyword.
    let mut params = at(TICTACTOE_URI, row_use.clone());
    params["newName"] = json!("full_row");
    let edit = c.request("textDocument/rename", params.clone());
    let edits = edit["changes"][TICTACTOE_URI].as_array().unwrap();
    assert_eq!(edits.len(), 2, "{edit}");
    assert!(edits.iter().all(|e| e["newText"] == "full_row"));
    params["newName"] = json!("Bad Name");
    let id = c.send_request("textDocument/rename", params);
    let response = c.response(id);
    assert_eq!(response["error"]["code"], json!(-32803), "{response}");
    let mut params = at(TICTACTOE_URI, x_in_row.clone());
    params["newName"] = json!("who");
    let edit = c.request("textDocument/rename", params);
    let edits = edit["changes"][TICTACTOE_URI].as_array().unwrap();
    assert_eq!(edits.len(), 4, "{edit}");
    let rule_line = x_in_row["line"].as_u64().unwrap();
    for e in edits {
        assert_eq!(e["newText"], "?who");
        let line = e["range"]["start"]["line"].as_u64().unwrap();
        assert!((rule_line..rule_line + 4).contains(&line), "{e}");
    }
    let legal = position(&text, "(<= (legal ?w", 0, 5);
    let prepared = c.request("textDocument/prepareRename", at(TICTACTOE_URI, legal));
    assert_eq!(prepared, Value::Null);
    let prepared = c.request(
        "textDocument/prepareRename",
        at(TICTACTOE_URI, row_use.clone()),
    );
    assert_eq!(prepared["placeholder"], "row");
    assert_eq!(c.shutdown(), Some(0));
}

/// The semantic tokens decoded: (line, character, length, type, modifiers).
fn decode(data: &[Value]) -> Vec<(u64, u64, u64, u64, u64)> {
    let mut out = Vec::new();
    let (mut line, mut character) = (0, 0);
    for t in data.chunks(5) {
        let n: Vec<u64> = t.iter().map(|v| v.as_u64().unwrap()).collect();
        if n[0] > 0 {
            character = 0;
        }
        line += n[0];
        character += n[1];
        out.push((line, character, n[2], n[3], n[4]));
    }
    out
}

#[test]
fn tokens_symbols_and_completion_on_tictactoe() {
    let text = tictactoe();
    let (mut c, capabilities) = Client::initialized();
    let legend = &capabilities["semanticTokensProvider"]["legend"]["tokenTypes"];
    assert_eq!(
        legend,
        &json!([
            "keyword",
            "function",
            "struct",
            "enumMember",
            "variable",
            "number",
            "comment",
            "operator"
        ])
    );
    c.open(TICTACTOE_URI, "gdl", 1, &text);
    let tokens = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": TICTACTOE_URI}}),
    );
    let tokens = decode(tokens["data"].as_array().unwrap());
    let first_line = text.lines().next().unwrap().encode_utf16().count() as u64;
    assert_eq!(tokens[0], (0, 0, first_line, 6, 0), "the first comment");
    let line_of = |needle: &str| position(&text, needle, 0, 0)["line"].as_u64().unwrap();
    let on = |line: u64| -> Vec<(u64, u64, u64, u64, u64)> {
        tokens.iter().copied().filter(|t| t.0 == line).collect()
    };
    let role = line_of("(role x)");
    assert_eq!(on(role), [(role, 1, 4, 0, 0), (role, 6, 1, 3, 0)]);
    let legal = line_of("(<= (legal ?w (mark ?x ?y))");
    assert_eq!(
        on(legal),
        [
            (legal, 1, 2, 0, 0),  // <=
            (legal, 5, 5, 0, 0),  // legal
            (legal, 11, 2, 4, 0), // ?w
            (legal, 15, 4, 2, 0), // mark
            (legal, 20, 2, 4, 0), // ?x
            (legal, 23, 2, 4, 0), // ?y
        ]
    );
    let row = line_of("(<= (row ?m ?x)");
    assert_eq!(
        on(row)[1],
        (row, 5, 3, 1, 1),
        "a relation in a head: a declaration"
    );
    let index = line_of("(index 1)");
    assert_eq!(on(index), [(index, 1, 5, 1, 1), (index, 7, 1, 5, 0)]);
    let not = line_of("(not (line o)))");
    assert_eq!(on(not)[0], (not, 5, 3, 0, 0));

    // The outline: the roles, then each relation with its rules.
    let symbols = c.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": TICTACTOE_URI}}),
    );
    let symbols = symbols.as_array().unwrap();
    let names: Vec<&str> = symbols
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(&names[..4], ["x", "o", "input", "index"], "{names:?}");
    assert_eq!(symbols[0]["detail"], "role");
    let row = symbols.iter().find(|s| s["name"] == "row").unwrap();
    assert_eq!(row["detail"], "1 rule");
    assert_eq!(row["children"][0]["name"], "(row ?m ?x)");
    let init = symbols.iter().find(|s| s["name"] == "init").unwrap();
    assert_eq!(init["children"].as_array().unwrap().len(), 10);

    // Completion: keywords with their arity, relations, functions, constants, the rule's
    // variables.
    let items = c.request(
        "textDocument/completion",
        at(TICTACTOE_URI, position(&text, "(row ?m ?x))", 0, 1)),
    );
    let items: Vec<(String, String)> = items
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["label"].as_str().unwrap().to_string(),
                i["detail"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for expected in [
        ("legal", "legal/2"),
        ("terminal", "terminal/0"),
        ("row", "relation/2"),
        ("cell", "function/3"),
        ("noop", "constant"),
        ("?x", "variable"),
    ] {
        assert!(
            items.contains(&(expected.0.to_string(), expected.1.to_string())),
            "{expected:?} in {items:?}"
        );
    }
    assert!(
        !items.iter().any(|(l, _)| l == "?y"),
        "a variable of another rule"
    );

    // Infix: the same types, and the operators.
    let uri = "file:///t.hrf";
    c.open(
        uri,
        "gdl-infix",
        1,
        "role(x)\nterminal :- true(p) & ~q % done\n",
    );
    let tokens = c.request(
        "textDocument/semanticTokens/full",
        json!({"textDocument": {"uri": uri}}),
    );
    assert_eq!(
        decode(tokens["data"].as_array().unwrap()),
        [
            (0, 0, 4, 0, 0),  // role
            (0, 5, 1, 3, 0),  // x
            (1, 0, 8, 0, 0),  // terminal
            (1, 9, 2, 7, 0),  // :-
            (1, 12, 4, 0, 0), // true
            (1, 17, 1, 3, 0), // p
            (1, 20, 1, 7, 0), // &
            (1, 22, 1, 7, 0), // ~
            (1, 23, 1, 1, 0), // q
            (1, 25, 6, 6, 0), // % done
        ]
    );
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn formatting_the_document_a_range_and_a_new_line() {
    let (mut c, _) = Client::initialized();
    let uri = "file:///f.kif";
    let text = "(role x)   (init (p))\n(<= terminal\n(true (p)))  ; end\n";
    c.open(uri, "gdl", 1, text);
    let options = json!({"tabSize": 4, "insertSpaces": true});
    let edits = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": options}),
    );
    assert_eq!(
        edits,
        json!([{"range": range((0, 0), (3, 0)),
                "newText": "(role x)\n\n(init p)\n\n; end\n(<= terminal\n    (true p))\n"}])
    );
    // Only the rule the range touches.
    let edits = c.request(
        "textDocument/rangeFormatting",
        json!({"textDocument": {"uri": uri}, "range": range((0, 12), (0, 13)), "options": options}),
    );
    assert_eq!(
        edits,
        json!([{"range": range((0, 11), (0, 21)), "newText": "(init p)"}])
    );
    // A new line inside a rule is indented.
    c.change(uri, 2, "(<= terminal\n  \n");
    let edits = c.request(
        "textDocument/onTypeFormatting",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 2}, "ch": "\n", "options": options}),
    );
    assert_eq!(
        edits,
        json!([{"range": range((1, 0), (1, 2)), "newText": "    "}])
    );
    // Not while the text has syntax errors.
    let id = c.send_request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": uri}, "options": options}),
    );
    let response = c.response(id);
    assert_eq!(response["error"]["code"], json!(-32803), "{response}");
    // Infix documents are formatted as infix.
    let infix_uri = "file:///f.hrf";
    c.open(
        infix_uri,
        "gdl-infix",
        1,
        "role(x)\nterminal :-   true(p)\n",
    );
    let edits = c.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": infix_uri}, "options": options}),
    );
    assert_eq!(edits[0]["newText"], "role(x)\n\nterminal :- true(p)\n");
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn the_commands_validate_play_and_convert() {
    let text = tictactoe();
    let (mut c, capabilities) = Client::initialized();
    assert_eq!(
        capabilities["executeCommandProvider"]["commands"],
        json!(["gdlc.validate", "gdlc.playout", "gdlc.convert"])
    );
    c.open(TICTACTOE_URI, "gdl", 1, &text);
    let command = |name: &str, arguments: Value| json!({"command": name, "arguments": arguments});
    let reply = c.request(
        "workspace/executeCommand",
        command("gdlc.playout", json!([TICTACTOE_URI, 3])),
    );
    let path = gdl_tests::example("ticTacToe.kif");
    assert_eq!(reply["text"], gdlc_output(&["trace", "--seed", "3", &path]));
    assert_eq!(reply["language"], "plaintext");
    let reply = c.request(
        "workspace/executeCommand",
        command("gdlc.convert", json!([TICTACTOE_URI, "infix"])),
    );
    assert_eq!(reply["text"], gdlc_output(&["fmt", "--to", "infix", &path]));
    assert_eq!(reply["language"], "gdl-infix");
    let reply = c.request(
        "workspace/executeCommand",
        command("gdlc.validate", json!([TICTACTOE_URI])),
    );
    let summary = reply["text"].as_str().unwrap();
    assert!(
        summary.starts_with("ticTacToe: exhaustive: 5478 states (958 terminal), depth 9"),
        "{summary}"
    );
    assert!(c.diagnostics(TICTACTOE_URI, 1).is_empty());

    // A game with a dead end: the findings as diagnostics, the moves in their messages.
    let uri = "file:///stuck.kif";
    let stuck = "(role x)\n(init (s 0))\n(<= (legal x go) (true (s 0)))\n(<= (next (s 1)) (does x go))\n(<= terminal (true (s 2)))\n(goal x 100)\n";
    c.open(uri, "gdl", 1, stuck);
    assert!(c.diagnostics(uri, 1).is_empty());
    let reply = c.request(
        "workspace/executeCommand",
        command("gdlc.validate", json!([uri])),
    );
    assert!(
        reply["text"]
            .as_str()
            .unwrap()
            .contains("stuck: not well-formed: 2 error(s), 1 warning(s)"),
        "{reply}"
    );
    let d = c.diagnostics(uri, 1);
    assert_eq!(
        codes(&d),
        [
            "no-legal-move",
            "not-weakly-winnable",
            "not-strongly-winnable"
        ]
    );
    assert_eq!(d[0]["range"], range((2, 4), (2, 16)));
    assert_eq!(d[0]["source"], "gdlc validate");
    assert_eq!(
        d[0]["message"],
        "no-legal-move for role x: no legal move in a non-terminal state\nafter the moves:\n1. (does x go)"
    );
    // An edit drops the validation's findings.
    c.change(uri, 2, &stuck.replace("(s 2)", "(s 1)"));
    assert!(c.diagnostics(uri, 2).is_empty());

    // Bad arguments.
    let id = c.send_request(
        "workspace/executeCommand",
        command("gdlc.convert", json!([uri, "lisp"])),
    );
    assert_eq!(c.response(id)["error"]["code"], json!(-32803));
    let id = c.send_request(
        "workspace/executeCommand",
        command("gdlc.nothing", json!([uri])),
    );
    assert_eq!(c.response(id)["error"]["code"], json!(-32803));
    let id = c.send_request(
        "workspace/executeCommand",
        command("gdlc.validate", json!(["file:///not-open.kif"])),
    );
    assert_eq!(c.response(id)["error"]["code"], json!(-32602));
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn bad_input_is_answered_and_the_server_keeps_running() {
    let mut c = Client::start();
    // Before initialize.
    let id = c.send_request(
        "textDocument/hover",
        at("file:///a.kif", json!({"line": 0, "character": 0})),
    );
    assert_eq!(c.response(id)["error"]["code"], json!(-32002));
    // Garbage, JSON that is no message, a message that is no JSON.
    c.send_raw(b"\x00\xff\xfe garbage without a header\r\n\r\n");
    let log = c.wait_for(|m| m["method"] == "window/logMessage");
    let logged = log["params"]["message"].as_str().unwrap();
    assert!(
        logged.starts_with("gdlc lsp: malformed header line"),
        "{logged}"
    );
    assert_eq!(log["params"]["type"], json!(2));
    c.send_raw(b"Content-Length: 20\r\n\r\n{\"jsonrpc\": \"2.0\", \"");
    c.send(&json!({"jsonrpc": "2.0", "id": 41, "error": 5}));
    assert_eq!(c.response(41)["error"]["code"], json!(-32700));
    let result = c.request("initialize", json!({"capabilities": {}}));
    assert!(result["capabilities"]["hoverProvider"] == json!(true));
    c.notify("initialized", json!({}));
    // Unknown methods and notifications; parameters of the wrong shape.
    let id = c.send_request("gdl/unknown", json!({}));
    assert_eq!(c.response(id)["error"]["code"], json!(-32601));
    c.notify("gdl/unknownNotification", json!([1, 2]));
    c.notify("textDocument/didOpen", json!("not an object"));
    let id = c.send_request("textDocument/hover", json!("not an object"));
    assert_eq!(c.response(id)["error"]["code"], json!(-32602));
    let id = c.send_request("initialize", json!({"capabilities": {}}));
    assert_eq!(c.response(id)["error"]["code"], json!(-32600));

    // A truncated message (shorter than its length) swallows the start of the next one; the
    // one after is answered.
    c.send_raw(b"Content-Length: 60\r\n\r\n{\"jsonrpc\": \"2.0\"}");
    c.notify("initialized", json!({}));
    let id = c.send_request("gdl/unknown", json!({}));
    assert_eq!(c.response(id)["error"]["code"], json!(-32601));

    // A chain of 200,000 relations (it overflowed `gdlc check`'s stack when strongly connected
    // components were found by recursion; `check_cli` has the command's test).
    let uri = "file:///chain.kif";
    let mut chain: String = (0..200_000)
        .map(|i| format!("(<= r{} r{i})\n", i + 1))
        .collect();
    chain.push_str("r0\n(role x)\n(<= (legal x a) r200000)\n");
    c.open(uri, "gdl", 1, &chain);
    let d = c.diagnostics(uri, 1);
    assert_eq!(codes(&d), ["missing-relation", "missing-relation"]);
    assert!(c.running());

    // A 50 MB document: read, its syntax checked, too large to check as it is edited.
    let uri = "file:///big.kif";
    let big = "(index 1)\n".repeat(5_000_000);
    c.open(uri, "gdl", 1, &big);
    let d = c.diagnostics(uri, 1);
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0]["message"]
            .as_str()
            .unwrap()
            .starts_with("the description is too large to check")
    );
    let hover = c.request(
        "textDocument/hover",
        at(uri, json!({"line": 4_000_000, "character": 2})),
    );
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("5000000 rules define it"),
        "{hover}"
    );
    assert!(c.running());
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn cancelled_requests_are_answered_request_cancelled() {
    let text = tictactoe();
    let (mut c, _) = Client::initialized();
    c.open(TICTACTOE_URI, "gdl", 1, &text);
    assert!(c.diagnostics(TICTACTOE_URI, 1).is_empty());
    let hover = at(TICTACTOE_URI, position(&text, "(line x)", 0, 1));
    let symbols = json!({"textDocument": {"uri": TICTACTOE_URI}});

    // Requests on an analysed document and a cancel of two of them, in one write: those two
    // are answered RequestCancelled, the others as usual.
    c.send_all(&[
        request(json!(1001), "textDocument/hover", hover.clone()),
        request(json!("b"), "textDocument/hover", hover.clone()),
        request(json!(1003), "textDocument/documentSymbol", symbols.clone()),
        request(json!(1004), "textDocument/hover", hover.clone()),
        cancel(json!({"id": "b"})),
        cancel(json!({"id": 1004})),
    ]);
    let shown = |r: &Value| r["result"]["contents"]["value"].as_str().map(String::from);
    let first = c.wait_for(|m| m["id"] == json!(1001));
    assert!(
        shown(&first).is_some_and(|s| s.starts_with("**relation** `line`")),
        "{first}"
    );
    for id in [json!("b"), json!(1004)] {
        let r = c.wait_for(|m| m["id"] == id);
        assert_eq!(r["error"]["code"], json!(-32800), "{r}");
        assert!(r.get("result").is_none(), "{r}");
    }
    let outline = c.wait_for(|m| m["id"] == json!(1003));
    assert!(
        outline["result"].as_array().is_some_and(|a| !a.is_empty()),
        "{outline}"
    );

    // An edit, requests that wait for its analysis, and a cancel of one of them.
    let uri = "file:///games/misspelt.kif";
    c.open(uri, "gdl", 1, MISSPELT);
    let cell = at(uri, json!({"line": 4, "character": 21}));
    c.send_all(&[
        json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"text": MISSPELT.replace("cel ", "cell ")}]}}),
        request(json!(2001), "textDocument/hover", cell.clone()),
        request(json!(2002), "textDocument/hover", cell),
        cancel(json!({"id": 2001})),
    ]);
    let r = c.wait_for(|m| m["id"] == json!(2001));
    assert_eq!(r["error"]["code"], json!(-32800), "{r}");
    let r = c.wait_for(|m| m["id"] == json!(2002));
    assert!(
        shown(&r).is_some_and(|s| s.starts_with("**function** `cell`, arity 2")),
        "{r}"
    );

    // Cancels of requests answered already, of unknown ids, and malformed ones: no reply,
    // and the server answers on.
    c.send_all(&[
        cancel(json!({"id": 1001})),
        cancel(json!({"id": 424242})),
        cancel(json!({"id": "unknown"})),
        cancel(json!({})),
        cancel(json!({"id": [1]})),
        json!({"jsonrpc": "2.0", "method": "$/cancelRequest"}),
    ]);
    let after = c.request("textDocument/hover", hover);
    assert!(shown(&json!({ "result": after })).is_some(), "{after}");
    let stray: Vec<Value> = c
        .take_stash()
        .into_iter()
        .filter(|m| m.get("id").is_some())
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    assert!(c.running());
    assert_eq!(c.shutdown(), Some(0));
}

#[test]
fn exit_without_shutdown_is_exit_code_1() {
    let (mut c, _) = Client::initialized();
    c.notify("exit", Value::Null);
    assert_eq!(c.wait_exit(), Some(1));
}

/// The time from an edit to its diagnostics on the largest games of the corpus (`GDL_CORPUS`):
/// printed, and under 100 ms each (the median of the edits of a game). Ignored by default (it
/// measures): `cargo test --release -p gdlc --test lsp -- --ignored --nocapture`.
#[test]
#[ignore]
fn diagnostics_latency_on_the_largest_corpus_games() {
    let mut games: Vec<std::path::PathBuf> =
        std::fs::read_dir(gdl_tests::corpus_dir().join("games"))
            .into_iter()
            .flatten()
            .flatten()
            .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "kif"))
            .collect();
    games.sort_by_key(|p| std::cmp::Reverse(std::fs::metadata(p).map_or(0, |m| m.len())));
    assert!(
        !games.is_empty(),
        "no corpus at {}",
        gdl_tests::corpus_dir().display()
    );
    let (mut c, _) = Client::initialized();
    for path in games.iter().take(5) {
        let text = std::fs::read_to_string(path).expect("a game");
        let uri = format!(
            "file:///corpus/{}",
            path.file_name().unwrap().to_string_lossy()
        );
        c.open(&uri, "gdl", 1, &text);
        c.diagnostics(&uri, 1);
        let mut times = Vec::new();
        for version in 2..=12 {
            // An edit: a comment that grows at the end.
            let edited = format!("{text}\n; edit {}\n", "x".repeat(version as usize));
            let started = std::time::Instant::now();
            c.change(&uri, version, &edited);
            c.diagnostics(&uri, version);
            times.push(started.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        println!(
            "{}: {} bytes, edit to diagnostics: median {median:.1} ms, max {:.1} ms",
            path.display(),
            text.len(),
            times[times.len() - 1]
        );
        assert!(median < 100.0, "{}: {median:.1} ms", path.display());
    }
    assert_eq!(c.shutdown(), Some(0));
}
