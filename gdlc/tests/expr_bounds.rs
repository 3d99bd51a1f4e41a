//! Generated code stays within what rustc handles: no expression nested deeper than
//! [`MAX_DEPTH`] (a left-deep chain `a | b | ..` of 10,000 operands overflows rustc's stack).
//! The generated module is parsed with syn and walked.

use std::path::Path;

use gdlc::codegen::Backend;
use gdlc::{CompileOptions, compile};
use syn::visit::{self, Visit};

/// The deepest expression nesting allowed in generated code.
const MAX_DEPTH: usize = 64;

#[derive(Default, Debug)]
struct Metrics {
    /// The deepest nesting of expressions.
    depth: usize,
    /// The most operands of one expression of `|` / `&` (through parentheses).
    operands: usize,
    /// The most statements of one function body (nested blocks included).
    statements: usize,
    current: usize,
}

impl Metrics {
    fn of(source: &str) -> Metrics {
        let file = syn::parse_file(source).expect("generated code parses");
        let mut m = Metrics::default();
        m.visit_file(&file);
        m
    }
}

fn is_bit_op(e: &syn::Expr) -> bool {
    matches!(e, syn::Expr::Binary(b) if matches!(b.op, syn::BinOp::BitOr(_) | syn::BinOp::BitAnd(_)))
}

/// The operands of the tree of `|` / `&` at `e` (an iterative walk: the tree may be deep).
fn operands(e: &syn::Expr) -> usize {
    let mut stack = vec![e];
    let mut n = 0;
    while let Some(e) = stack.pop() {
        match e {
            syn::Expr::Binary(b) if is_bit_op(e) => {
                stack.push(&b.left);
                stack.push(&b.right);
            }
            syn::Expr::Paren(p) if is_bit_op(&p.expr) => stack.push(&p.expr),
            _ => n += 1,
        }
    }
    n
}

impl<'ast> Visit<'ast> for Metrics {
    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if is_bit_op(e) {
            self.operands = self.operands.max(operands(e));
        }
        self.current += 1;
        self.depth = self.depth.max(self.current);
        visit::visit_expr(self, e);
        self.current -= 1;
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let mut count = StatementCount(0);
        count.visit_block(&f.block);
        self.statements = self.statements.max(count.0);
        visit::visit_item_fn(self, f);
    }
}

struct StatementCount(usize);

impl<'ast> Visit<'ast> for StatementCount {
    fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
        self.0 += 1;
        visit::visit_stmt(self, s);
    }
}

fn metrics_of(kif: &Path, backend: Backend) -> Metrics {
    let source = std::fs::read_to_string(kif).unwrap();
    let stem = kif.file_stem().unwrap().to_string_lossy();
    let mut options = CompileOptions::for_game(&stem);
    options.codegen.backend = backend;
    let compiled =
        compile(source.as_str(), &options).unwrap_or_else(|d| panic!("{}: {d:?}", kif.display()));
    // A deep tree would overflow the test thread's stack before the assertion could report it.
    let rust = compiled.rust;
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || Metrics::of(&rust))
        .unwrap()
        .join()
        .unwrap()
}

fn check(kif: &Path, backend: Backend) {
    let m = metrics_of(kif, backend);
    eprintln!("{} {backend:?}: {m:?}", kif.display());
    assert!(
        m.depth <= MAX_DEPTH,
        "{} ({backend:?}): expressions nested {} deep (at most {MAX_DEPTH} allowed)",
        kif.display(),
        m.depth
    );
}

#[test]
fn fixture_expressions_are_shallow() {
    let kif = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/ticTacToe.kif");
    for backend in [Backend::Inline, Backend::Propnet] {
        check(&kif, backend);
    }
}

/// A game whose terminal condition is one disjunction of `n` conjunctions.
fn wide_game(n: usize) -> String {
    let mut s = String::from(
        "(role a) (init (c 0)) (<= (legal a go) (true (c ?x))) \
         (<= (next (c ?y)) (true (c ?x)) (succ ?x ?y)) (<= (goal a 100) terminal)\n",
    );
    for i in 0..n {
        s.push_str(&format!("(succ {i} {})\n", i + 1));
        s.push_str(&format!(
            "(<= terminal (true (c {i})) (true (c {})))\n",
            n - i
        ));
    }
    s
}

#[test]
fn a_wide_disjunction_is_a_shallow_tree() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("expr-bounds");
    std::fs::create_dir_all(&dir).unwrap();
    let kif = dir.join("wide.kif");
    std::fs::write(&kif, wide_game(3000)).unwrap();
    let m = metrics_of(&kif, Backend::Inline);
    assert!(m.operands >= 1000, "the game is not wide: {m:?}");
    assert!(m.depth <= MAX_DEPTH, "{m:?}");
}

/// The corpus games with the widest disjunctions (of legal moves, terminal and goals).
#[test]
fn wide_corpus_games_have_shallow_expressions() {
    let Some(dir) = gdl_tests::corpus_path("expr_bounds", "games/ggp-repository") else {
        return;
    };
    for name in ["snake_2009_big", "snakeParallel", "snake_2008"] {
        check(&dir.join(format!("{name}.kif")), Backend::Inline);
    }
}
