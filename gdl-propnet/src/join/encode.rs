//! The text form of a [`JoinProgram`] (see [`crate::text`]): its tables, lazy
//! relations and join rules, read back with limits from the text's own lengths.

use super::*;

impl JoinProgram {
    /// Appends the program to `w` (see [`crate::text`]).
    pub(crate) fn encode(&self, w: &mut crate::text::Writer) {
        w.put(self.tables.len() as u32);
        for t in &self.tables {
            w.put(t.width);
            w.put(t.signals.len() as u32);
            w.all(&t.rows);
            for &s in &t.signals {
                w.put(s.wrapping_add(1));
            }
        }
        w.put(self.lazy.len() as u32);
        for rules in &self.lazy {
            w.put(rules.len() as u32);
            for r in rules {
                encode_rule(w, r);
            }
        }
        w.put(self.joins.len() as u32);
        for j in &self.joins {
            encode_rule(w, &j.rule);
            w.put(j.outputs.len() as u32);
            for o in &j.outputs {
                w.all(o);
            }
        }
    }

    /// Reads a program written by [`JoinProgram::encode`].
    pub(crate) fn decode(
        r: &mut crate::text::Reader<'_>,
        limit: usize,
    ) -> Result<Self, crate::DecodeError> {
        let ntables = r.len(limit)?;
        let mut tables = Vec::with_capacity(ntables);
        for _ in 0..ntables {
            let width = r.len(64)?;
            let nrows = r.len(limit)?;
            let rows = r.vec(
                width
                    .checked_mul(nrows)
                    .ok_or(crate::DecodeError("table too large"))?,
            )?;
            let signals = r
                .vec(nrows)?
                .into_iter()
                .map(|s| s.wrapping_sub(1))
                .collect();
            tables.push(Table {
                width: width as u32,
                rows,
                signals,
            });
        }
        let nlazy = r.len(limit)?;
        let mut lazy = Vec::with_capacity(nlazy);
        for _ in 0..nlazy {
            let n = r.len(limit)?;
            let mut rules = Vec::with_capacity(n);
            for _ in 0..n {
                rules.push(decode_rule(r, limit)?);
            }
            lazy.push(rules);
        }
        let njoins = r.len(limit)?;
        let mut joins = Vec::with_capacity(njoins);
        for _ in 0..njoins {
            let rule = decode_rule(r, limit)?;
            let n = r.len(limit)?;
            let mut outputs = Vec::with_capacity(n);
            for _ in 0..n {
                outputs.push(r.vec(rule.head.len())?);
            }
            joins.push((rule, outputs));
        }
        Ok(JoinProgram::new(tables, lazy, joins))
    }
}

fn put_arg(w: &mut crate::text::Writer, a: Arg) {
    match a {
        Arg::Var(v) => w.put(v << 1),
        Arg::Const(c) => w.put(c << 1 | 1),
    }
}

fn get_arg(r: &mut crate::text::Reader<'_>) -> Result<Arg, crate::DecodeError> {
    let x = r.next()?;
    Ok(if x & 1 == 0 {
        Arg::Var(x >> 1)
    } else {
        Arg::Const(x >> 1)
    })
}

fn encode_rule(w: &mut crate::text::Writer, rule: &Rule) {
    w.put(rule.vars);
    w.put(rule.head.len() as u32);
    for &a in &rule.head {
        put_arg(w, a);
    }
    w.put(rule.steps.len() as u32);
    for s in &rule.steps {
        match s {
            Step::Scan { table, cols, bound } => {
                w.put(0);
                w.put(*table);
                w.put(cols.len() as u32);
                w.all(cols);
                w.put(*bound as u32);
                w.put((*bound >> 32) as u32);
            }
            Step::Absent { table, cols } => {
                w.put(1);
                w.put(*table);
                w.put(cols.len() as u32);
                w.all(cols);
            }
            Step::Call {
                relation,
                args,
                negated,
            } => {
                w.put(2 + u32::from(*negated));
                w.put(*relation);
                w.put(args.len() as u32);
                for &a in args {
                    put_arg(w, a);
                }
            }
            Step::Compare { a, b, equal } => {
                w.put(4 + u32::from(*equal));
                put_arg(w, *a);
                put_arg(w, *b);
            }
        }
    }
}

fn decode_rule(r: &mut crate::text::Reader<'_>, limit: usize) -> Result<Rule, crate::DecodeError> {
    let vars = r.next()?;
    let nhead = r.len(limit)?;
    let head = (0..nhead).map(|_| get_arg(r)).collect::<Result<_, _>>()?;
    let nsteps = r.len(limit)?;
    let mut steps = Vec::with_capacity(nsteps);
    for _ in 0..nsteps {
        let tag = r.next()?;
        steps.push(match tag {
            0 | 1 => {
                let table = r.next()?;
                let n = r.len(64)?;
                let cols = r.vec(n)?;
                if tag == 0 {
                    let lo = u64::from(r.next()?);
                    let hi = u64::from(r.next()?);
                    Step::Scan {
                        table,
                        cols,
                        bound: lo | hi << 32,
                    }
                } else {
                    Step::Absent { table, cols }
                }
            }
            2 | 3 => {
                let relation = r.next()?;
                let n = r.len(limit)?;
                let args = (0..n).map(|_| get_arg(r)).collect::<Result<_, _>>()?;
                Step::Call {
                    relation,
                    args,
                    negated: tag == 3,
                }
            }
            4 | 5 => Step::Compare {
                a: get_arg(r)?,
                b: get_arg(r)?,
                equal: tag == 5,
            },
            _ => return Err(crate::DecodeError("bad join step")),
        });
    }
    Ok(Rule { vars, head, steps })
}
