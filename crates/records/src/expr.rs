//! The arithmetic of a declared check's expectations: `n`, `grid * bins`,
//! `n + grid * bins - 1`, `global_load_requests`.
//!
//! A sum of products of whole numbers and names (a launch's `n`, `grid`, `block`, `bins`,
//! or one of the emulator's counters); no parentheses, no division: what a counter bound
//! in the course needs, and nothing a reader has to think about. The records are checked
//! with it at build time; the chapter evaluates it at check time.

/// One factor of a product.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Factor {
    Number(i128),
    Name(String),
}

/// A parsed expression: signed products, summed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    terms: Vec<(i128, Vec<Factor>)>,
}

impl Expr {
    /// Parses `text`; the error says what is wrong where.
    pub fn parse(text: &str) -> Result<Expr, String> {
        let mut terms = Vec::new();
        let mut sign = 1;
        let mut factors = Vec::new();
        let mut expect_operand = true;
        let chars: Vec<char> = text.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if c.is_whitespace() {
                i += 1;
                continue;
            }
            if expect_operand {
                let start = i;
                if c.is_ascii_digit() {
                    while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '_') {
                        i += 1;
                    }
                    let digits: String = chars[start..i].iter().filter(|c| **c != '_').collect();
                    let v = digits
                        .parse::<i128>()
                        .map_err(|e| format!("`{text}`: {e}"))?;
                    factors.push(Factor::Number(v));
                } else if c.is_ascii_alphabetic() || c == '_' {
                    while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                        i += 1;
                    }
                    factors.push(Factor::Name(chars[start..i].iter().collect()));
                } else {
                    return Err(format!(
                        "`{text}`: expected a number or a name at `{}`",
                        chars[i..].iter().collect::<String>()
                    ));
                }
                expect_operand = false;
                continue;
            }
            match c {
                '*' => {}
                '+' | '-' => {
                    terms.push((sign, std::mem::take(&mut factors)));
                    sign = if c == '+' { 1 } else { -1 };
                }
                _ => {
                    return Err(format!(
                        "`{text}`: expected `+`, `-` or `*` at `{}`",
                        chars[i..].iter().collect::<String>()
                    ));
                }
            }
            expect_operand = true;
            i += 1;
        }
        if expect_operand {
            return Err(format!(
                "`{text}`: it ends where a number or a name should be"
            ));
        }
        terms.push((sign, factors));
        Ok(Expr { terms })
    }

    /// The names the expression reads, in order.
    pub fn names(&self) -> Vec<&str> {
        self.terms
            .iter()
            .flat_map(|(_, f)| f.iter())
            .filter_map(|f| match f {
                Factor::Name(n) => Some(n.as_str()),
                Factor::Number(_) => None,
            })
            .collect()
    }

    /// Its value, with `value(name)` for each name; the error names the first unknown one.
    pub fn eval(&self, value: impl Fn(&str) -> Option<i128>) -> Result<i128, String> {
        let mut sum: i128 = 0;
        for (sign, factors) in &self.terms {
            let mut product: i128 = *sign;
            for f in factors {
                let v = match f {
                    Factor::Number(v) => *v,
                    Factor::Name(n) => value(n).ok_or_else(|| format!("no value named `{n}`"))?,
                };
                product = product.saturating_mul(v);
            }
            sum = sum.saturating_add(product);
        }
        Ok(sum)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(name: &str) -> Option<i128> {
        match name {
            "n" => Some(1000),
            "grid" => Some(3),
            "bins" => Some(256),
            _ => None,
        }
    }

    #[test]
    fn sums_of_products_evaluate_with_their_names() {
        let e = Expr::parse("n + grid * bins - 1").unwrap();
        assert_eq!(e.eval(vars), Ok(1000 + 3 * 256 - 1));
        assert_eq!(e.names(), ["n", "grid", "bins"]);
        assert_eq!(Expr::parse("0").unwrap().eval(vars), Ok(0));
        assert_eq!(Expr::parse("2*grid*bins").unwrap().eval(vars), Ok(1536));
        assert_eq!(Expr::parse("1_000 - n").unwrap().eval(vars), Ok(0));
    }

    #[test]
    fn malformed_expressions_and_unknown_names_are_errors() {
        for bad in ["", "n +", "* n", "n / 2", "(n)", "n n"] {
            assert!(Expr::parse(bad).is_err(), "{bad}");
        }
        let e = Expr::parse("n + blocks").unwrap();
        assert_eq!(e.eval(vars), Err("no value named `blocks`".into()));
    }
}
