//! Lowering to the IR and each optimisation pass, on programs of a few lines: each test
//! asserts on the IR's structure through its public API, before and after the pass it is about.

use gdlc::ir::{self, Input, Ir, Lit};
use gdlc::optimise::{self, OptimiseOptions};
use gdlc::pipeline::{self, CompileOptions, Pass};

/// One role `r` with two moves `m` and `n`, always legal, prepended to each program.
const PRELUDE: &str = "(role r) (legal r m) (legal r n)";

/// The IR of `PRELUDE` + `rules`, as lowered (not optimised).
fn lowered(rules: &str) -> Ir {
    let source = format!("{PRELUDE}\n{rules}");
    let a = pipeline::run(&source, &CompileOptions::default(), Pass::Ground)
        .unwrap_or_else(|e| panic!("{:?}", e.iter().map(|d| &d.message).collect::<Vec<_>>()));
    ir::lower(a.ground.as_ref().expect("ground rules")).expect("lowers")
}

/// The IR of `PRELUDE` + `rules`, fully optimised.
fn optimised(rules: &str) -> Ir {
    let mut ir = lowered(rules);
    optimise::optimise(&mut ir, &OptimiseOptions::default());
    ir
}

fn prop(ir: &Ir, text: &str) -> Option<u32> {
    ir.props
        .iter()
        .position(|p| p.text == text)
        .map(|i| i as u32)
}

fn bit(ir: &Ir, text: &str) -> u32 {
    let i = ir.bits.iter().position(|b| b == text);
    i.unwrap_or_else(|| panic!("no bit {text} in {:?}", ir.bits)) as u32
}

fn goal(ir: &Ir, value: i32) -> Lit {
    let g = ir.goals[0].iter().find(|g| g.value == Some(value));
    g.unwrap_or_else(|| panic!("no goal {value}")).when
}

/// `q = p & c`, and the test sets `p` to a constant: `q` folds to `c` or to false.
const CONJUNCTION: &str = "(init a) (init b) (init c) (<= p (true a) (true b)) (<= q p (true c))
    (<= terminal q) (<= (goal r 100) (true c))";

fn with_p_constant(value: bool) -> Ir {
    let mut ir = lowered(CONJUNCTION);
    let p = prop(&ir, "p").expect("p") as usize;
    let q = prop(&ir, "q").expect("q") as usize;
    assert!(
        ir.props[q].disjuncts[0].contains(&Lit::pos(Input::Prop(p as u32))),
        "{ir}"
    );
    ir.props[p].disjuncts = vec![vec![Lit::pos(Input::Const(value))]];
    optimise::simplify(&mut ir);
    ir
}

#[test]
fn a_prop_that_is_always_true_folds_out_of_its_readers() {
    let ir = with_p_constant(true);
    assert_eq!(ir.terminal, Lit::pos(Input::Bit(bit(&ir, "c"))), "{ir}");
}

#[test]
fn a_prop_that_is_always_false_makes_its_conjunctions_false() {
    let ir = with_p_constant(false);
    assert_eq!(ir.terminal, Lit::FALSE, "{ir}");
}

#[test]
fn an_alias_is_replaced_by_its_literal() {
    let rules = "(init a) (<= p (true a)) (<= terminal p) (<= (goal r 100) (not p))";
    let mut ir = lowered(rules);
    let a = Lit::pos(Input::Bit(bit(&ir, "a")));
    optimise::simplify(&mut ir);
    optimise::remove_dead(&mut ir);
    assert_eq!(ir.terminal, a, "{ir}");
    assert_eq!(goal(&ir, 100), a.negate(), "{ir}");
    assert!(prop(&ir, "p").is_none(), "{ir}");
}

#[test]
fn identical_props_merge() {
    let rules = "(init a) (init b) (<= p (true a) (true b)) (<= q (true b) (true a))
        (<= terminal p) (<= (goal r 100) q)";
    let mut ir = lowered(rules);
    assert_ne!(ir.terminal, goal(&ir, 100), "lowered: {ir}");
    optimise::simplify(&mut ir);
    assert!(matches!(ir.terminal.input, Input::Prop(_)), "{ir}");
    assert_eq!(ir.terminal, goal(&ir, 100), "{ir}");
}

#[test]
fn props_no_output_reads_are_removed() {
    // Once `q` is replaced by its alias `p`, nothing reads `q`.
    let rules = "(init a) (init b) (<= p (true a) (true b)) (<= q p)
        (<= terminal q) (<= (goal r 100) (true b))";
    let mut ir = lowered(rules);
    optimise::simplify(&mut ir);
    assert!(prop(&ir, "q").is_some(), "before: {ir}");
    optimise::remove_dead(&mut ir);
    assert!(prop(&ir, "q").is_none(), "{ir}");
    let p = prop(&ir, "p").expect("p stays");
    assert_eq!(ir.terminal, Lit::pos(Input::Prop(p)), "{ir}");
}

/// Grounding derives `(near 2 3)` and `(near 3 4)` (a cell holds for each), and the atoms
/// `(near #0 3)` and `(near #0 4)` that project them, but the one rule reading `near` needs
/// `(target ?y)`, which holds only for 2: no instance of it reads them, so no output does.
const UNREAD: &str = "(init (cell 1)) (init (cell 2)) (init (cell 3))
    (succ 1 2) (succ 2 3) (succ 3 4) (target 2)
    (<= (near ?x ?y) (true (cell ?x)) (succ ?x ?y))
    (<= (next (cell ?y)) (near ?x ?y) (target ?y))
    (<= terminal (true (cell 4))) (<= (goal r 100) (true (cell 2)))";

#[test]
fn lowering_makes_props_only_of_atoms_some_output_reads() {
    let source = format!("{PRELUDE}\n{UNREAD}");
    let a = pipeline::run(&source, &CompileOptions::default(), Pass::Ground).expect("grounds");
    let g = a.ground.as_ref().expect("ground rules");
    let heads: Vec<String> = g.rules.iter().map(|r| g.text(r.head)).collect();
    let unread = ["(near 2 3)", "(near 3 4)", "(near #0 3)", "(near #0 4)"];
    for atom in unread.iter().chain(&["(near 1 2)", "(near #0 2)"]) {
        assert!(
            heads.iter().any(|h| h == atom),
            "{atom} not derived: {heads:?}"
        );
    }
    let ir = ir::lower(g).expect("lowers");
    for atom in unread {
        assert!(prop(&ir, atom).is_none(), "{atom} lowered: {ir}");
    }
    assert!(prop(&ir, "(near 1 2)").is_some(), "{ir}");
    assert!(prop(&ir, "(near #0 2)").is_some(), "{ir}");
    // The two legal moves, the goal, `(next (cell 2))` and the two `near` atoms it reads.
    assert_eq!(ir.props.len(), 6, "{ir}");
}

#[test]
fn a_bit_that_keeps_its_initial_value_becomes_a_constant() {
    let rules = "(init (lamp lit)) (<= (next (lamp lit)) (true (lamp lit)))
        (<= (next a) (does r m)) (<= terminal (true a) (true (lamp lit)))
        (<= (goal r 100) (true (lamp lit)))";
    let mut ir = lowered(rules);
    assert!(ir.bits.iter().any(|b| b == "(lamp lit)"), "lowered: {ir}");
    optimise::constant_bits(&mut ir);
    optimise::simplify(&mut ir);
    optimise::remove_dead(&mut ir);
    assert!(!ir.bits.iter().any(|b| b == "(lamp lit)"), "{ir}");
    assert!(ir.constant_facts.iter().any(|f| f == "(lamp lit)"), "{ir}");
    assert_eq!(goal(&ir, 100), Lit::TRUE, "{ir}");
    assert_eq!(ir.terminal, Lit::pos(Input::Bit(bit(&ir, "a"))), "{ir}");
}

#[test]
fn a_bit_that_changes_stays_a_bit() {
    let rules = "(init (lamp lit)) (<= (next (lamp lit)) (true (lamp lit)) (does r n))
        (<= (next a) (does r m)) (<= terminal (true a)) (<= (goal r 100) (true (lamp lit)))";
    let mut ir = lowered(rules);
    optimise::constant_bits(&mut ir);
    assert!(ir.bits.iter().any(|b| b == "(lamp lit)"), "{ir}");
    assert!(ir.constant_facts.is_empty(), "{ir}");
}

#[test]
fn a_literal_common_to_every_disjunct_is_factored_out() {
    let rules = "(init c) (init a) (init b) (init d)
        (<= p (true c) (true a) (true d)) (<= p (true c) (true b) (true d))
        (<= terminal p) (<= (goal r 100) (true a))";
    let mut ir = lowered(rules);
    optimise::simplify(&mut ir);
    let p = prop(&ir, "p").expect("p") as usize;
    assert_eq!(ir.props[p].disjuncts.len(), 2, "before: {ir}");
    optimise::factor(&mut ir);
    let (c, d) = (bit(&ir, "c"), bit(&ir, "d"));
    let p = &ir.props[prop(&ir, "p").expect("p after factoring") as usize];
    assert_eq!(p.disjuncts.len(), 1, "{ir}");
    let conj = &p.disjuncts[0];
    assert!(conj.contains(&Lit::pos(Input::Bit(c))), "{ir}");
    assert!(conj.contains(&Lit::pos(Input::Bit(d))), "{ir}");
    // What is left, `a | b`, is a new prop.
    let rest = conj.iter().find_map(|l| match l.input {
        Input::Prop(q) => Some(q as usize),
        _ => None,
    });
    let rest = rest.unwrap_or_else(|| panic!("no prop for a | b: {ir}"));
    assert_eq!(ir.props[rest].disjuncts.len(), 2, "{ir}");
}

#[test]
fn a_recursive_relation_lowers_to_a_recursive_group() {
    let rules = "(node x) (node y) (node z) (edge x y) (edge y x) (edge y z)
        (init (open x y)) (init (open y x)) (init (open y z))
        (<= (next (open ?u ?v)) (true (open ?u ?v)) (does r m))
        (<= (reach ?u ?v) (edge ?u ?v) (true (open ?u ?v)))
        (<= (reach ?u ?w) (node ?v) (reach ?u ?v) (edge ?v ?w) (true (open ?v ?w)))
        (<= terminal (reach x z)) (<= (goal r 100) (reach x z))";
    let ir = lowered(rules);
    assert!(!ir.groups.is_empty(), "{ir}");
    let group_of = ir.group_of();
    let reach_xy = prop(&ir, "(reach x y)").expect("(reach x y)");
    let reach_xx = prop(&ir, "(reach x x)").expect("(reach x x)");
    let g = group_of[reach_xy as usize];
    assert!(g.is_some(), "(reach x y) in no group: {ir}");
    assert_eq!(g, group_of[reach_xx as usize], "{ir}");
    // `(reach x z)` reads the cycle but is not on it.
    let reach_xz = prop(&ir, "(reach x z)").expect("(reach x z)");
    assert_eq!(group_of[reach_xz as usize], None, "{ir}");
    let optimised = optimised(rules);
    assert!(
        !optimised.groups.is_empty(),
        "the group survives optimisation: {optimised}"
    );
}

#[test]
fn next_of_a_bit_that_persists_reads_the_bit_or_the_move() {
    let rules = "(<= (next jumped) (does r m)) (<= (next jumped) (true jumped))
        (<= terminal (true jumped)) (<= (goal r 100) (true jumped))";
    let ir = optimised(rules);
    let s = bit(&ir, "jumped");
    let next = ir.next[s as usize];
    let Input::Prop(p) = next.input else {
        panic!("next jumped is not a prop: {ir}");
    };
    assert!(!next.negated);
    let mut disjuncts = ir.props[p as usize].disjuncts.clone();
    disjuncts.sort();
    let m = ir.moves[0].iter().position(|t| t == "m").expect("move m") as u32;
    let mut expected = vec![
        vec![Lit::pos(Input::Bit(s))],
        vec![Lit::pos(Input::Does { role: 0, mv: m })],
    ];
    expected.sort();
    assert_eq!(disjuncts, expected, "{ir}");
}

/// The value of every prop for the state bits `bits` and no move played (props outside
/// groups).
fn eval_props(ir: &Ir, bits: &[bool]) -> Vec<bool> {
    let mut value: Vec<bool> = Vec::with_capacity(ir.props.len());
    let lit = |l: &Lit, value: &[bool]| -> bool {
        let v = match l.input {
            Input::Const(c) => c,
            Input::Bit(b) => bits[b as usize],
            Input::Prop(p) => value[p as usize],
            Input::Does { .. } | Input::MoveIn(_) => false,
            other => panic!("unexpected input {other:?}"),
        };
        v != l.negated
    };
    for p in &ir.props {
        let v = p.disjuncts.iter().any(|c| c.iter().all(|l| lit(l, &value)));
        value.push(v);
    }
    value
}

/// The terminal literal's value in every assignment of the state bits, in order.
fn terminal_table(ir: &Ir) -> Vec<bool> {
    let n = ir.bits.len();
    assert!(n <= 14, "too many bits for a table: {n}");
    (0..1u32 << n)
        .map(|a| {
            let bits: Vec<bool> = (0..n).map(|b| a >> b & 1 == 1).collect();
            let props = eval_props(ir, &bits);
            let l = ir.terminal;
            let v = match l.input {
                Input::Prop(p) => props[p as usize],
                Input::Bit(b) => bits[b as usize],
                Input::Const(c) => c,
                other => panic!("unexpected terminal input {other:?}"),
            };
            v != l.negated
        })
        .collect()
}

/// Eight bits `(a 1)`..`(a 8)`, a guard `g` and two others `y`, `z`, all changing (so that no
/// bit becomes a constant).
const GROUP_BITS: &str = "(init g) (init y) (init z)
    (<= (next g) (does r m)) (<= (next y) (does r n)) (<= (next z) (does r m))
    (<= (next (a ?i)) (does r n) (index ?i))
    (index 1) (index 2) (index 3) (index 4) (index 5) (index 6) (index 7) (index 8)
    (<= (goal r 100) (true z))";

/// The number of conjunctions of the IR that read `l`.
fn readers(ir: &Ir, l: Lit) -> usize {
    let conj = ir.props.iter().flat_map(|p| &p.disjuncts);
    conj.filter(|c| c.contains(&l)).count()
}

#[test]
fn a_literal_most_disjuncts_share_is_factored_out_of_them() {
    // `p`: eight disjuncts read `g`, one does not: `p = (y & z) | g & (a1 | .. | a8)`.
    let rules = format!(
        "{GROUP_BITS} (<= p (true g) (true (a ?i)) (index ?i)) (<= p (true y) (true z))
        (<= terminal p)"
    );
    let mut ir = lowered(&rules);
    optimise::simplify(&mut ir);
    let g = Lit::pos(Input::Bit(bit(&ir, "g")));
    assert_eq!(readers(&ir, g), 8, "before: {ir}");
    let before = terminal_table(&ir);
    // Straight-line code gains nothing from it: plain factoring leaves the groups alone.
    let mut plain = ir.clone();
    optimise::factor(&mut plain);
    assert_eq!(plain.props, ir.props, "{plain}");
    optimise::factor_groups(&mut ir);
    assert_eq!(readers(&ir, g), 1, "{ir}");
    let p = &ir.props[prop(&ir, "p").expect("p") as usize];
    assert_eq!(p.disjuncts.len(), 2, "{ir}");
    assert_eq!(
        terminal_table(&ir),
        before,
        "factoring changed terminal: {ir}"
    );
}

#[test]
fn a_literal_most_props_of_a_disjunction_read_is_factored_out_of_them() {
    // `h` is the disjunction of eight props `(r i) = g & (a i)` and of `s = y & z`, as a
    // role's "has a legal move" reads its moves: `h = s | g & (a1 | .. | a8)`, and the props
    // `(r i)` are left to their other readers (here the goals).
    let rules = format!(
        "{GROUP_BITS} (<= (r ?i) (true g) (true (a ?i)) (index ?i)) (<= s (true y) (true z))
        (<= h (r ?i) (index ?i)) (<= h s) (<= terminal h)
        (<= (goal r 0) (r 1)) (<= (goal r 10) (r 2))"
    );
    let mut ir = lowered(&rules);
    optimise::simplify(&mut ir);
    let g = Lit::pos(Input::Bit(bit(&ir, "g")));
    let before = terminal_table(&ir);
    optimise::factor_groups(&mut ir);
    let h = &ir.props[prop(&ir, "h").expect("h") as usize];
    assert_eq!(h.disjuncts.len(), 2, "{ir}");
    let group = h.disjuncts.iter().find(|c| c.contains(&g));
    let group = group.unwrap_or_else(|| panic!("no disjunct of h reads g: {ir}"));
    let rest = group.iter().find_map(|l| match l.input {
        Input::Prop(q) => Some(q as usize),
        _ => None,
    });
    let rest = rest.unwrap_or_else(|| panic!("no prop for a1 | .. | a8: {ir}"));
    assert_eq!(ir.props[rest].disjuncts.len(), 8, "{ir}");
    assert_eq!(
        terminal_table(&ir),
        before,
        "factoring changed terminal: {ir}"
    );
}

#[test]
fn two_disjuncts_of_a_prop_that_share_a_literal_are_factored() {
    // `p = g & y | g & z | a1`: `g` is read once, `p = a1 | g & (y | z)`.
    let rules = format!(
        "{GROUP_BITS} (<= p (true g) (true y)) (<= p (true g) (true z)) (<= p (true (a 1)))
        (<= terminal p)"
    );
    let mut ir = lowered(&rules);
    optimise::simplify(&mut ir);
    let g = Lit::pos(Input::Bit(bit(&ir, "g")));
    assert_eq!(readers(&ir, g), 2, "before: {ir}");
    let before = terminal_table(&ir);
    optimise::factor_groups(&mut ir);
    assert_eq!(readers(&ir, g), 1, "{ir}");
    let p = &ir.props[prop(&ir, "p").expect("p") as usize];
    assert_eq!(p.disjuncts.len(), 2, "{ir}");
    assert_eq!(
        terminal_table(&ir),
        before,
        "factoring changed terminal: {ir}"
    );
}

#[test]
fn a_factored_part_names_the_rules_of_its_prop() {
    let rules = format!(
        "{GROUP_BITS} (<= p (true g) (true y)) (<= p (true g) (true z)) (<= p (true (a 1)))
        (<= terminal p)"
    );
    let mut ir = lowered(&rules);
    optimise::simplify(&mut ir);
    let origins = ir.props[prop(&ir, "p").expect("p") as usize]
        .origins
        .clone();
    assert!(!origins.is_empty(), "{ir}");
    optimise::factor_groups(&mut ir);
    let parts: Vec<_> = ir
        .props
        .iter()
        .filter(|q| q.text.starts_with("p ("))
        .collect();
    assert!(!parts.is_empty(), "nothing factored: {ir}");
    for q in parts {
        assert_eq!(q.origins, origins, "{}: {ir}", q.text);
    }
}

#[test]
fn disjuncts_that_share_no_literal_are_left_as_they_are() {
    let rules = format!(
        "{GROUP_BITS} (<= p (true g) (true (a 1))) (<= p (true y) (true z)) (<= terminal p)"
    );
    let mut ir = lowered(&rules);
    optimise::simplify(&mut ir);
    let before = ir.props.clone();
    optimise::factor_groups(&mut ir);
    assert_eq!(ir.props, before, "{ir}");
}

#[test]
fn a_conjunction_part_of_another_prop_is_shared() {
    // `p = g & y & z` and `h = y & z | a1`: `y & z` becomes a prop `q` that both read, so `y`
    // and `z` are read once each: `p = g & q`, `h = q | a1`.
    let rules = format!(
        "{GROUP_BITS} (<= p (true g) (true y) (true z)) (<= h (true y) (true z))
        (<= h (true (a 1))) (<= terminal p (not h)) (<= terminal (true (a 2)) h)"
    );
    let mut ir = lowered(&rules);
    optimise::simplify(&mut ir);
    let y = Lit::pos(Input::Bit(bit(&ir, "y")));
    assert_eq!(readers(&ir, y), 2, "before: {ir}");
    let before = terminal_table(&ir);
    optimise::share_conjunctions(&mut ir);
    assert_eq!(readers(&ir, y), 1, "{ir}");
    let p = &ir.props[prop(&ir, "p").expect("p") as usize];
    assert_eq!(p.disjuncts, vec![p.disjuncts[0].clone()], "{ir}");
    assert_eq!(p.disjuncts[0].len(), 2, "{ir}");
    assert_eq!(
        terminal_table(&ir),
        before,
        "sharing changed terminal: {ir}"
    );
}

#[test]
fn a_conjunction_no_other_prop_has_a_part_of_is_left_as_it_is() {
    let rules = format!(
        "{GROUP_BITS} (<= p (true g) (true y) (true z)) (<= h (true y) (true (a 1)))
        (<= h (true (a 2))) (<= terminal p (not h))"
    );
    let mut ir = lowered(&rules);
    optimise::simplify(&mut ir);
    let before = ir.props.clone();
    optimise::share_conjunctions(&mut ir);
    assert_eq!(ir.props, before, "{ir}");
}

#[test]
fn a_disjunct_of_one_literal_absorbs_what_the_others_repeat() {
    // `p = !g | g & y | g & (a 1) & z | y & z`, as chess's `legalMove` reads "not in check, or
    // in check and a way out": `p = !g | y | (a 1) & z`, so that `g` is read once; `y & z`
    // is absorbed by `y` once `y` stands alone.
    let rules = format!(
        "{GROUP_BITS} (<= p (not (true g))) (<= p (true g) (true y))
        (<= p (true g) (true (a 1)) (true z)) (<= p (true y) (true z)) (<= terminal p)"
    );
    let mut ir = lowered(&rules);
    optimise::simplify(&mut ir);
    let g = bit(&ir, "g");
    let reads_g = |ir: &Ir| {
        let p = &ir.props[prop(ir, "p").expect("p") as usize];
        p.disjuncts
            .iter()
            .flatten()
            .filter(|l| l.input == Input::Bit(g))
            .count()
    };
    assert_eq!(reads_g(&ir), 3, "before: {ir}");
    let before = terminal_table(&ir);
    assert!(optimise::absorb(&mut ir));
    assert_eq!(reads_g(&ir), 1, "{ir}");
    let p = &ir.props[prop(&ir, "p").expect("p") as usize];
    assert_eq!(p.disjuncts.len(), 3, "{ir}");
    assert_eq!(
        terminal_table(&ir),
        before,
        "absorbing changed terminal: {ir}"
    );
    // Nothing left to absorb.
    assert!(!optimise::absorb(&mut ir));
}

#[test]
fn a_unit_that_props_of_a_disjunction_share_is_read_once() {
    // `(q ?i) = !g | (a ?i) & y` and `h = (q 1) & (a 1) | .. | (q 8) & (a 8)`: as `h = !g &
    // ((a 1) | .. | (a 8)) | (a 1) & y | ..`, a change of `g` reaches one gate of `h`, not
    // the eight `(q ?i)`.
    let rules = format!(
        "{GROUP_BITS} (<= (q ?i) (not (true g)) (index ?i)) (<= (q ?i) (true (a ?i)) (true y))
        (<= h (q ?i) (true (a ?i))) (<= terminal h)"
    );
    let mut ir = lowered(&rules);
    optimise::simplify(&mut ir);
    let not_g = Lit::pos(Input::Bit(bit(&ir, "g"))).negate();
    let qs: Vec<Lit> = (1..=8)
        .map(|i| Lit::pos(Input::Prop(prop(&ir, &format!("(q {i})")).expect("q"))))
        .collect();
    let h = prop(&ir, "h").expect("h") as usize;
    let reads_q = |ir: &Ir, h: usize| {
        let d = &ir.props[h].disjuncts;
        d.iter()
            .filter(|c| c.iter().any(|l| qs.contains(l)))
            .count()
    };
    assert_eq!(reads_q(&ir, h), 8, "before: {ir}");
    let before = terminal_table(&ir);
    assert!(optimise::distribute_units(&mut ir));
    let h = prop(&ir, "h").expect("h") as usize;
    assert_eq!(reads_q(&ir, h), 0, "{ir}");
    let with_g: Vec<_> = ir.props[h]
        .disjuncts
        .iter()
        .filter(|c| c.contains(&not_g))
        .collect();
    assert_eq!(with_g.len(), 1, "{ir}");
    assert_eq!(
        terminal_table(&ir),
        before,
        "distributing changed terminal: {ir}"
    );
    // Fewer than eight such conjunctions are left as they are.
    let rules = rules.replace("(index 8)", "").replace("(index 7)", "");
    let mut ir = lowered(&rules);
    optimise::simplify(&mut ir);
    let props = ir.props.clone();
    assert!(!optimise::distribute_units(&mut ir));
    assert_eq!(ir.props, props);
}

/// A ray of cells `(c 2)`..`(c 6)` from a piece `(p 1)`: `(open ?i ?k)`, "the cells from `i`
/// to `k` are empty", is a chain (`(c i)` empty and `(open i+1 k)`), which `(reach ?k)` reads
/// with the piece, as chess's moves along a line read `openStretch`.
const RAY: &str =
    "(init (p 1)) (<= (next (p 1)) (does r m)) (<= (next (c ?i)) (does r n) (index ?i))
    (index 2) (index 3) (index 4) (index 5) (index 6) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
    (<= (open ?i ?i) (not (true (c ?i))) (index ?i))
    (<= (open ?i ?k) (not (true (c ?i))) (succ ?i ?j) (open ?j ?k))
    (<= (reach ?k) (true (p 1)) (open 2 ?k))
    (<= (next x) (does r n)) (<= terminal (reach 6) (true x)) (<= terminal (reach 4) (not (true x)))
    (<= (goal r 100) (true x))";

/// An activity of `held` (the share of sampled states) for a state bit, changing as often.
fn activity(held: f64) -> optimise::Activity {
    optimise::Activity {
        held,
        changes: held,
    }
}

/// Options of [`optimise::guard_chains`] under which only state bit `seldom` is seldom true.
fn seldom_bit(ir: &Ir, seldom: usize) -> optimise::ChainOptions {
    let mut options = optimise::ChainOptions {
        bits: vec![activity(0.5); ir.bits.len()],
        ..Default::default()
    };
    options.bits[seldom] = activity(0.01);
    options
}

#[test]
fn a_chain_read_with_a_seldom_true_bit_is_read_under_it() {
    let ir = optimised(RAY);
    let p1 = bit(&ir, "(p 1)") as usize;
    let piece = Lit::pos(Input::Bit(p1 as u32));
    assert_eq!(readers(&ir, piece), 2, "before: {ir}");
    let mut options = seldom_bit(&ir, p1);
    let mut after = ir.clone();
    assert!(optimise::guard_chains(&mut after, &options));
    optimise::simplify(&mut after);
    optimise::remove_dead(&mut after);
    // The piece is read once, by the first link, which both rays share; no `open` is left.
    assert_eq!(readers(&after, piece), 1, "{after}");
    assert!(prop(&after, "(open 2 6)").is_none(), "{after}");
    assert_eq!(terminal_table(&after), terminal_table(&ir), "{after}");
    // A piece that is often there is not a guard.
    options.bits[p1] = activity(0.5);
    let mut same = ir.clone();
    assert!(!optimise::guard_chains(&mut same, &options));
    assert_eq!(same.props, ir.props);
}

#[test]
fn the_chains_of_one_ray_share_their_links() {
    // Every cell of the ray is reached: each chain's last link, `(c k-1)` and `(c k)` empty
    // once `(open k k)` is inlined, steps through the links of the longer chains (made
    // first), so that a cell is read by one link under the piece, not by the last link of
    // every chain too; but for the cell before the ray's end, which the last link of the
    // longest chain reads as well.
    let rules = format!(
        "{RAY} (<= terminal (reach 5) (true x)) (<= terminal (reach 3) (not (true x)))
        (<= terminal (reach 2) (true x))"
    );
    let ir = optimised(&rules);
    let p1 = bit(&ir, "(p 1)") as usize;
    let options = seldom_bit(&ir, p1);
    let mut after = ir.clone();
    assert!(optimise::guard_chains(&mut after, &options));
    optimise::simplify(&mut after);
    optimise::remove_dead(&mut after);
    for i in 2..=6 {
        let empty = Lit::pos(Input::Bit(bit(&after, &format!("(c {i})")))).negate();
        let expected = if i == 5 { 2 } else { 1 };
        assert_eq!(readers(&after, empty), expected, "(c {i}): {after}");
    }
    assert_eq!(terminal_table(&after), terminal_table(&ir), "{after}");
}

/// The number of selectors of [`selected`].
const SELECTORS: usize = 36;

/// Bits `(a 1)`..`(a 36)`, one true at a time (a counter), and `x`, set by move `m`; each
/// `(b ?i)` is `x & (a ?i)`.
fn selected() -> String {
    let succ: String = (1..SELECTORS)
        .map(|i| format!("(succ {i} {})", i + 1))
        .collect();
    format!(
        "(init (a 1))
        (<= (next (a ?j)) (true (a ?i)) (succ ?i ?j)) (<= (next (a 1)) (true (a {SELECTORS})))
        (<= (next x) (does r m)) (<= (next (b ?i)) (true x) (true (a ?i)))
        (<= terminal (true (b {SELECTORS}))) (<= (goal r 100) (true (b 1))) {succ}"
    )
}

/// The value of every `next` literal for the state bits `bits` and no move played.
fn next_values(ir: &Ir, bits: &[bool]) -> Vec<bool> {
    let props = eval_props(ir, bits);
    ir.next
        .iter()
        .map(|l| {
            let v = match l.input {
                Input::Prop(p) => props[p as usize],
                Input::Bit(b) => bits[b as usize],
                Input::Const(c) => c,
                Input::Does { .. } | Input::MoveIn(_) => false,
                other => panic!("unexpected input {other:?}"),
            };
            v != l.negated
        })
        .collect()
}

#[test]
fn a_literal_read_with_many_selectors_reads_them_through_blocks() {
    let ir = optimised(&selected());
    let xb = bit(&ir, "x") as usize;
    let x = Lit::pos(Input::Bit(xb as u32));
    assert_eq!(readers(&ir, x), SELECTORS, "before: {ir}");
    let a: Vec<u32> = (1..=SELECTORS)
        .map(|i| bit(&ir, &format!("(a {i})")))
        .collect();
    // The counter's states, in order; `x` changes at every state.
    let words = ir.bits.len().div_ceil(64);
    let states: Vec<Vec<u64>> = (0..4 * SELECTORS)
        .map(|t| {
            let mut s = vec![0u64; words];
            let b = a[t % SELECTORS] as usize;
            s[b / 64] |= 1 << (b % 64);
            s
        })
        .collect();
    let mut bits = vec![optimise::Activity::default(); ir.bits.len()];
    for &b in &a {
        bits[b as usize] = optimise::Activity {
            held: 1.0 / SELECTORS as f64,
            changes: 2.0 / SELECTORS as f64,
        };
    }
    bits[xb] = optimise::Activity {
        held: 0.5,
        changes: 1.0,
    };
    let mut options = optimise::DemuxOptions {
        bits,
        states,
        ..Default::default()
    };
    assert_eq!(optimise::demux_candidates(&ir, &options), vec![x.input]);
    options.inputs.insert(x.input, options.bits[xb]);
    let mut after = ir.clone();
    optimise::demux(&mut after, &options);
    optimise::simplify(&mut after);
    // `x` feeds one gate per block of six selectors.
    assert_eq!(readers(&after, x), 6, "{after}");
    // Every next value is the same, in states of any bits.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for _ in 0..200 {
        let assignment: Vec<bool> = (0..ir.bits.len())
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed & 1 == 1
            })
            .collect();
        assert_eq!(
            next_values(&ir, &assignment),
            next_values(&after, &assignment),
            "{after}"
        );
    }
}

#[test]
fn a_literal_whose_selectors_hold_together_is_left_as_it_is() {
    let ir = optimised(&selected());
    let x = Lit::pos(Input::Bit(bit(&ir, "x")));
    // Every `(a ?i)` holds in half the states, all at once: each block holds when `x` changes.
    let words = ir.bits.len().div_ceil(64);
    let mut bits = vec![optimise::Activity::default(); ir.bits.len()];
    let mut all = vec![0u64; words];
    for i in 1..=SELECTORS {
        let b = bit(&ir, &format!("(a {i})")) as usize;
        all[b / 64] |= 1 << (b % 64);
        bits[b] = optimise::Activity {
            held: 0.5,
            changes: 1.0,
        };
    }
    let mut options = optimise::DemuxOptions {
        bits,
        states: [all, vec![0u64; words]]
            .iter()
            .cycle()
            .take(8)
            .cloned()
            .collect(),
        ..Default::default()
    };
    let activity = optimise::Activity {
        held: 0.5,
        changes: 1.0,
    };
    options.inputs.insert(x.input, activity);
    let mut after = ir.clone();
    optimise::demux(&mut after, &options);
    assert_eq!(after.props, ir.props, "{after}");
}

/// Two roles, moves read by `next`, state bits read positively and negatively, a recursive
/// relation and a negated derived atom: every kind of body literal lowering reads.
const EVERY_LITERAL: &str = "
(role x) (role o)
(init (cell 1 b)) (init (cell 2 b)) (init (control x))
(succ 1 2)
(<= (legal ?r (mark ?c)) (role ?r) (true (control ?r)) (true (cell ?c b)))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (cell ?c ?r)) (does ?r (mark ?c)))
(<= (next (cell ?c b)) (true (cell ?c b)) (not (marked ?c)))
(<= (marked ?c) (does ?r (mark ?c)))
(<= (next (control o)) (true (control x)))
(<= (next (control x)) (true (control o)))
(<= (reach 1) (true (cell 1 x)))
(<= (reach ?d) (reach ?c) (succ ?c ?d) (true (cell ?d x)))
(<= (linked 1) (true (cell 1 o)))
(<= (linked 1) (linked 2))
(<= (linked 2) (linked 1) (true (cell 2 o)))
(<= terminal (reach 2))
(<= terminal (linked 2))
(<= terminal (not (open)))
(<= open (true (cell ?c b)))
(<= (goal ?r 100) (role ?r) (reach 2))
(<= (goal ?r 0) (role ?r) (not (reach 2)))
";

#[test]
fn lowering_that_takes_the_rules_releases_them_and_lowers_the_same_ir() {
    let a = pipeline::run(EVERY_LITERAL, &CompileOptions::default(), Pass::Ground)
        .unwrap_or_else(|e| panic!("{:?}", e.iter().map(|d| &d.message).collect::<Vec<_>>()));
    let mut g = a.ground.expect("ground rules");
    let borrowed = ir::lower(&g).expect("lowers");
    let rules = g.rules.clone();
    assert!(rules.len() > 10, "{} ground rules", rules.len());
    let mut released = Vec::new();
    let taken =
        ir::lower_taking(&mut g, &Default::default(), &mut |r| released.push(r)).expect("lowers");
    assert_eq!(released, [rules], "the rules, released once");
    assert!(g.rules.is_empty(), "the rules were taken");
    assert_eq!(format!("{taken:?}"), format!("{borrowed:?}"));
    assert!(
        borrowed.groups.len() == 1 && borrowed.moves.iter().all(|m| m.len() == 3),
        "{borrowed}"
    );
}

/// The props hold no spare room: lowering sizes each prop's disjuncts exactly (pushed one by
/// one, a prop of one rule kept room for four: 70 MB of amazonsTorus), and simplification
/// gives back the room of the disjuncts it drops.
#[test]
fn props_hold_no_spare_room() {
    let mut ir = lowered(
        "(init a) (init b) (<= p (true a)) (<= q (true a) (true b)) (<= q (true b))
        (<= terminal p) (<= (goal r 100) q)",
    );
    for prop in &ir.props {
        assert_eq!(prop.disjuncts.capacity(), prop.disjuncts.len(), "{ir}");
    }
    let q = prop(&ir, "q").expect("q") as usize;
    let a = bit(&ir, "a");
    ir.props[q].disjuncts = vec![vec![Lit::FALSE], vec![Lit::pos(Input::Bit(a))]];
    optimise::simplify(&mut ir);
    assert_eq!(ir.props[q].disjuncts, vec![vec![Lit::pos(Input::Bit(a))]]);
    for prop in &ir.props {
        assert_eq!(prop.disjuncts.capacity(), prop.disjuncts.len(), "{ir}");
    }
}
