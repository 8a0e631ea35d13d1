//! The syntax trees of DynamoDB expressions, as parsed.
//!
//! Names are kept as written: a path element starting with `#` is an
//! `ExpressionAttributeNames` placeholder until [`super::resolve`] replaces
//! it; a [`Operand::Value`] is an `ExpressionAttributeValues` placeholder
//! (`:v`), looked up at evaluation time.

/// One step of a document path: `name`, `.name` or `[index]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PathElem {
    /// A map key (top-level attribute name for the first element).
    Attr(String),
    /// A list index.
    Index(usize),
}

/// A document path such as `a.b[0].#c`; never empty, always starts with
/// [`PathElem::Attr`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Path(pub Vec<PathElem>);

impl Path {
    /// The top-level attribute name.
    pub fn top(&self) -> &str {
        match self.0.first() {
            Some(PathElem::Attr(n)) => n,
            _ => "",
        }
    }

    /// Whether `self` equals `other` or one is a prefix of the other.
    pub fn overlaps(&self, other: &Path) -> bool {
        self.0.iter().zip(other.0.iter()).all(|(a, b)| a == b)
    }

    /// Whether the two paths treat one document as two different types:
    /// after a common prefix, one continues with `.name` (a map) and the
    /// other with `[n]` (a list), as `a.b` and `a[0]` do.
    pub fn conflicts(&self, other: &Path) -> bool {
        for (a, b) in self.0.iter().zip(other.0.iter()) {
            match (a, b) {
                _ if a == b => continue,
                (PathElem::Attr(_), PathElem::Index(_))
                | (PathElem::Index(_), PathElem::Attr(_)) => {
                    return true;
                }
                _ => return false,
            }
        }
        false
    }
}

impl std::fmt::Display for Path {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, e) in self.0.iter().enumerate() {
            match e {
                PathElem::Attr(n) if i == 0 => write!(f, "{n}")?,
                PathElem::Attr(n) => write!(f, ".{n}")?,
                PathElem::Index(x) => write!(f, "[{x}]")?,
            }
        }
        Ok(())
    }
}

/// A value-producing operand.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Operand {
    /// The value at a document path (absent if the path is absent).
    Path(Path),
    /// An `ExpressionAttributeValues` placeholder, `:name`.
    Value(String),
    /// `size(path)`: a Number.
    Size(Path),
    /// `if_not_exists(path, operand)` (update expressions only).
    IfNotExists(Path, Box<Operand>),
    /// `list_append(a, b)` (update expressions only).
    ListAppend(Box<Operand>, Box<Operand>),
    /// `a + b` on Numbers (update expressions only).
    Plus(Box<Operand>, Box<Operand>),
    /// `a - b` on Numbers (update expressions only).
    Minus(Box<Operand>, Box<Operand>),
}

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Comparator {
    /// `=`
    Eq,
    /// `<>`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl Comparator {
    /// The comparator with its operands swapped: `a < b` is `b > a`.
    pub fn flipped(self) -> Self {
        match self {
            Self::Lt => Self::Gt,
            Self::Le => Self::Ge,
            Self::Gt => Self::Lt,
            Self::Ge => Self::Le,
            same => same,
        }
    }
}

impl Operand {
    /// The paths this operand reads.
    fn paths<'a>(&'a self, out: &mut Vec<&'a Path>) {
        match self {
            Self::Path(p) | Self::Size(p) => out.push(p),
            Self::Value(_) => {}
            Self::IfNotExists(p, v) => {
                out.push(p);
                v.paths(out);
            }
            Self::ListAppend(a, b) | Self::Plus(a, b) | Self::Minus(a, b) => {
                a.paths(out);
                b.paths(out);
            }
        }
    }
}

/// A condition (ConditionExpression, FilterExpression, KeyConditionExpression).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Condition {
    /// `a op b`
    Compare(Operand, Comparator, Operand),
    /// `a BETWEEN low AND high`
    Between(Operand, Operand, Operand),
    /// `a IN (b, c, ...)`
    In(Operand, Vec<Operand>),
    /// `attribute_exists(path)`
    Exists(Path),
    /// `attribute_not_exists(path)`
    NotExists(Path),
    /// `attribute_type(path, :type)`
    AttributeType(Path, Operand),
    /// `begins_with(path, operand)`
    BeginsWith(Operand, Operand),
    /// `contains(path, operand)`
    Contains(Operand, Operand),
    /// `a AND b`
    And(Box<Condition>, Box<Condition>),
    /// `a OR b`
    Or(Box<Condition>, Box<Condition>),
    /// `NOT a`
    Not(Box<Condition>),
}

impl Condition {
    /// Every document path the condition reads (recursion bounded by the
    /// 300-operator limit of the parser).
    pub fn paths(&self) -> Vec<&Path> {
        let mut out = Vec::new();
        self.collect_paths(&mut out);
        out
    }

    fn collect_paths<'a>(&'a self, out: &mut Vec<&'a Path>) {
        match self {
            Self::Compare(a, _, b) | Self::BeginsWith(a, b) | Self::Contains(a, b) => {
                a.paths(out);
                b.paths(out);
            }
            Self::Between(a, lo, hi) => {
                a.paths(out);
                lo.paths(out);
                hi.paths(out);
            }
            Self::In(a, list) => {
                a.paths(out);
                list.iter().for_each(|o| o.paths(out));
            }
            Self::Exists(p) | Self::NotExists(p) => out.push(p),
            Self::AttributeType(p, t) => {
                out.push(p);
                t.paths(out);
            }
            Self::And(a, b) | Self::Or(a, b) => {
                a.collect_paths(out);
                b.collect_paths(out);
            }
            Self::Not(a) => a.collect_paths(out),
        }
    }
}

/// An UpdateExpression: its four clauses, actions in written order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct UpdateExpr {
    /// `SET path = value`
    pub set: Vec<(Path, Operand)>,
    /// `REMOVE path`
    pub remove: Vec<Path>,
    /// `ADD path value`
    pub add: Vec<(Path, Operand)>,
    /// `DELETE path value`
    pub delete: Vec<(Path, Operand)>,
}
