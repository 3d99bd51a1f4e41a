//! The registry of diagnostic codes: every code a diagnostic can carry is one [`Code`] here,
//! with a paragraph that explains it and an example (`gdlc explain CODE` prints them, as
//! `rustc --explain` does). [`super::Diagnostic`]'s constructors take a `&'static Code`, so a
//! code that is not in this list cannot be emitted.

/// One diagnostic code and its documentation.
#[derive(Debug, PartialEq, Eq)]
pub struct Code {
    /// The stable short name shown in brackets after `error`/`warning`, e.g. `unsafe-variable`.
    pub name: &'static str,
    /// Whether a description with it can still be played.
    pub severity: super::Severity,
    /// What it means and what to do about it.
    pub explanation: &'static str,
    pub example: Example,
}

/// How a code is shown by example.
#[derive(Debug, PartialEq, Eq)]
pub enum Example {
    /// A description the checker reports with this code (the tests check that it does).
    Checked(&'static str),
    /// A description of a case, for codes that only large or slow descriptions reach.
    Described(&'static str),
}

/// The code named `name`.
pub fn lookup(name: &str) -> Option<&'static Code> {
    ALL.iter().copied().find(|c| c.name == name)
}

/// The text `gdlc explain` prints for `code`.
pub fn explain(code: &Code) -> String {
    let severity = match code.severity {
        super::Severity::Error => "error",
        super::Severity::Warning => "warning",
    };
    let example = match code.example {
        Example::Checked(src) => format!("Example:\n\n{}\n", indent(src)),
        Example::Described(text) => format!("Example: {text}\n"),
    };
    format!(
        "{} ({severity})\n\n{}\n\n{example}",
        code.name, code.explanation
    )
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

macro_rules! codes {
    ($($id:ident = $name:literal $severity:ident { $explanation:literal, $kind:ident($example:literal) })*) => {
        $(
            #[doc = $explanation]
            pub const $id: &Code = &Code {
                name: $name,
                severity: super::Severity::$severity,
                explanation: $explanation,
                example: Example::$kind($example),
            };
        )*
        /// Every code, in alphabetical order.
        pub const ALL: &[&Code] = &[$($id),*];
    };
}

codes! {
    CASE_VARIANT = "case-variant" Warning {
        "Two names differ only in case. KIF is case-insensitive for many managers (ggp-base reads \
         descriptions in lower case), so `cell` and `Cell` may become one name in a match: rename \
         one of them.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(p 1)\n(<= (legal r x) (P 1))")
    }
    EMPTY_BODY = "empty-body" Warning {
        "A rule without a body, `(<= head)`, means the same as the fact `head`: write the fact.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (p 3))")
    }
    EMPTY_OR = "empty-or" Warning {
        "An `(or)` with no branches is false, so the rule it is in never applies.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (p 1) (or))")
    }
    EMPTY_PARENTHESES = "empty-parentheses" Warning {
        "A name is written with empty parentheses, `(name)`. GDL reads it as the constant `name`; \
         some players reject the form: write the bare name.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (legal r n) (p))\n(p)")
    }
    FUNCTION_ARITY = "function-arity" Error {
        "A function symbol is used with different numbers of arguments. GDL gives each function \
         one arity: the uses point at each count; make them agree or use two names.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(p (f 1))\n(p (f 1 2))")
    }
    GOAL_VALUE = "goal-value" Warning {
        "A goal value is not an integer from 0 to 100. Managers expect goals in 0..100 and may \
         reject the match.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(goal r 101)")
    }
    GROUNDING_TOO_LARGE = "grounding-too-large" Error {
        "The rules are too large to ground within the compiler's limits, and the part named cannot \
         be evaluated at run time either. When the game is compiled for a crate, `gdlc` embeds the \
         reference interpreter instead (the finding then becomes a warning saying why).",
        Described("a rule that joins four relations of 10,000 facts each on no shared variable")
    }
    HYBRID_SLOWER = "hybrid-slower" Error {
        "The network with rules joined at run time (hybrid grounding) ran slower than the \
         reference interpreter in the race the compiler holds, so the interpreter is embedded. \
         Shown as the reason of an `embedded-interpreter` warning.",
        Described("a description whose largest relation is recomputed from scratch in every state")
    }
    ILLEGAL_DEPENDENCY = "illegal-dependency" Error {
        "A relation depends on one it may not: `init` and the roles on `true`, `does` or anything \
         that depends on the state; `legal`, `terminal` and `goal` on `does` (moves are known only \
         after the legal ones). The note shows the chain of dependencies.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (init q) (true s))")
    }
    INTERNAL = "internal" Error {
        "A pass of the compiler produced something it should not have. This is a bug in `gdlc`: \
         please report the description.",
        Described("none known")
    }
    INTERPRETER_BUDGET = "interpreter-budget" Error {
        "A query of the interpreter went past its budget (query steps, terms or the cells of a \
         relation). The error names the relation and the rule being evaluated; raise the limits \
         with `--max-query-steps`, `--max-terms` and `--max-relation-cells`.",
        Described("a recursive rule that builds ever longer terms, such as a counter without a bound")
    }
    KEYWORD_ARITY = "keyword-arity" Error {
        "A GDL keyword is used with the wrong number of arguments: `role`, `init`, `true`, `next`, \
         `base` take one, `legal`, `does`, `goal`, `input` and `sees` two, `terminal` none.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (legal r n) (true s t))")
    }
    KEYWORD_AS_FUNCTION = "keyword-as-function" Error {
        "A keyword is used as the name of a function term, e.g. `(cell (true x))`: keywords name \
         relations only.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(p (legal 1 2))")
    }
    KEYWORD_IN_BODY = "keyword-in-body" Error {
        "`init`, `next`, `base` and `input` are conclusions only: a rule body may not read them. \
         To read the current state, use `true`.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (legal r n) (next s))")
    }
    KEYWORD_IN_HEAD = "keyword-in-head" Error {
        "`true` and `does` are given by the game state and the moves: a rule may not define them.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (true q) (true s))")
    }
    LONG_INLINE_CODE = "long-inline-code" Warning {
        "The inline backend was asked for by name (`--backend inline`) for a game whose code is \
         longer than the `auto` backend accepts: it compiles, but rustc may take minutes and much \
         memory. `--backend auto` would choose the propnet backend.",
        Described("`gdlc emit hex.kif --backend inline` (about 8 MB of Rust)")
    }
    MISSING_RELATION = "missing-relation" Error {
        "The description never defines a relation every game needs: `role`, `terminal`, `goal`, \
         `legal` (and `init` unless it starts from an empty state).",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (goal r 100)")
    }
    MOVE_NEVER_LEGAL = "move-never-legal" Warning {
        "A `does` literal reads a move that no `legal` or `input` rule can produce, so the literal \
         is always false. Often a misspelt move or a wrong number of arguments (a \"did you mean\" \
         follows when a close move exists).",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (next q) (does r mm))")
    }
    NEGATIVE_CYCLE = "negative-cycle" Error {
        "A rule depends on its own negation through a cycle of dependencies: the description is \
         not stratified and has no single meaning. The labels show the cycle.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (p 1) (not (q 1)))\n(<= (q 1) (p 1))")
    }
    NESTED_OR = "nested-or" Warning {
        "An `or` nested directly inside another `or`: its branches can be written as branches of \
         the outer one.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(q 1) (q 2)\n(<= (p 2) (or (q 1) (or (q 2) (q 1))))")
    }
    OR_EXPANSION = "or-expansion" Error {
        "The `or`s of one rule expand into more rules than the compiler accepts (the product of \
         their branch counts). Split the rule with helper relations, one per `or`.",
        Described("a rule with twenty `or`s of two branches each (2^20 rules)")
    }
    OUTPUT_TOO_LARGE = "output-too-large" Error {
        "`terminal` or a `legal` rule depends on a static relation too large to compute, so the \
         compiled game could not answer it: the compiler refuses the game rather than answer \
         `false` or no moves.",
        Described("`(<= terminal (huge ?a ?b ?c))` where `huge` joins large relations")
    }
    RECURSION_RESTRICTION = "recursion-restriction" Error {
        "A recursive rule breaks GDL's recursion restriction: an argument of a literal recursive \
         with the head must be a ground term, a variable of the head, or a variable bound by a \
         positive literal of a non-recursive relation. Otherwise grounding need not terminate.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(n 0)\n(<= (p ?x) (n ?x))\n(<= (p ?y) (p (f ?y)))")
    }
    RELATION_ARITY = "relation-arity" Error {
        "A relation is used with different numbers of arguments. GDL gives each relation one arity: \
         the uses point at each count.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(foo bar)\n(foo bar bar)\n(<= (legal r ?x) (foo ?x))")
    }
    RELATION_NEGATIVE_CYCLE = "relation-negative-cycle" Warning {
        "Relations depend on their own negation relation by relation, but each instance does not \
         (the GDL specification stratifies instance by instance, Definition 12): the description \
         is valid, though some players that stratify by relation reject it.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(succ 1 2)\n(<= (p 1) (q 1))\n(<= (q 2) (not (p 1)))\n(<= (legal r x) (q 2))")
    }
    RESERVED_NAME = "reserved-name" Error {
        "A name reserved by GDL or its logic (`distinct`, `not`, `or`, `and`, `<=`) is used to name \
         a relation.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (not 1) (p 1))\n(p 1)")
    }
    ROLE_RULE = "role-rule" Error {
        "`role` is defined by a rule: the roles are given by ground facts such as `(role white)`, \
         so that a player can list them without reasoning.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (role q) (p 1))\n(p 1)")
    }
    ROLE_VARIABLE = "role-variable" Warning {
        "A variable of a `legal` or `goal` rule is bound only by the role the game asks about, not \
         by a positive literal of the body: the rule is unsafe by the letter of GDL, though most \
         players accept it. Add `(role ?x)` to the body.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(q 1)\n(<= (legal ?p ?p) (q 1))")
    }
    SENTENCE_AND_FUNCTION = "sentence-and-function" Warning {
        "One name is used both as a relation and as a function term. Valid GDL, but players that \
         translate to Prolog or a propnet by name may confuse the two.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(p 1)\n(q (p 1))\n(<= (legal r x) (q ?y))")
    }
    SYNTAX = "syntax" Error {
        "The text is not a well-formed KIF (or infix) description: an unbalanced parenthesis, a \
         quoted name never closed, a rule without a head. Every syntax error is reported, and \
         the checks after parsing wait until they are fixed.",
        Checked("(role r) (init s")
    }
    TRUE_NEVER_HOLDS = "true-never-holds" Warning {
        "A `true` literal reads a state fact that no `init` or `next` rule can produce, so the \
         literal is always false. Often a misspelt fact (a \"did you mean\" follows when a close \
         fact exists).",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (legal r n) (true (zzz 1)))")
    }
    UNDEFINED_RELATION = "undefined-relation" Warning {
        "A relation is read but never defined by a fact or a rule, so every literal of it is false \
         (often a misspelling: a \"did you mean\" follows when a close name exists).",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(helper 1)\n(<= (legal r x) (helpr 1))")
    }
    UNSAFE_VARIABLE = "unsafe-variable" Error {
        "A variable of a rule is not bound by a positive literal of its body (one that is not \
         `distinct` or negated): the rule could derive infinitely many facts. Bind the variable \
         with a positive literal, e.g. `(role ?x)` or a domain relation. (A warning when no game \
         relation depends on the rule.)",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (p ?x) (not (q ?x)))\n(q 1)\n(<= (legal r x) (p 1))")
    }
    UNUSED_RELATION = "unused-relation" Warning {
        "A relation is defined but nothing reads it, directly or through other rules, so it \
         cannot change the game: a leftover, or a misspelt name where it should be read.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(unused 1)")
    }
    UNUSUAL_NAME = "unusual-name" Warning {
        "A name has characters outside `[A-Za-z0-9_-]`. Valid KIF, but some players and the infix \
         syntax read it differently.",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(<= (legal r x) (p a.b))\n(p a.b)")
    }
    VARIABLE_IN_FACT = "variable-in-fact" Error {
        "A fact (a rule without a body) contains a variable: it would hold for every value. Write \
         a rule whose body binds the variable. (A warning when no game relation depends on \
         it.)",
        Checked("(role r) (init s) (legal r m) (<= (next s) (does r m)) (<= terminal (true s)) (goal r 100)\n(p ?x)\n(<= (legal r x) (p 1))")
    }
}
