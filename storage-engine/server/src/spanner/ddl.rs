//! The DDL statements `databases.updateDdl` accepts, parsed into the
//! engine's Spanner model ("Spanner: GoogleSQL data definition language",
//! "Spanner: PostgreSQL data definition language", "Spanner: Create and
//! manage time to live (TTL) policies"). Wire-only, so it lives here: the
//! engine's own API takes a [`SpannerTableDefinition`], and its row deletion
//! policy clause is parsed by the engine's [`RowDeletionPolicy::parse`].
//!
//! Accepted, keywords in any case, in either dialect in any database:
//!
//! * `CREATE TABLE t ( col TYPE [NOT NULL], … [, PRIMARY KEY (a, …)] )
//!   [PRIMARY KEY (a, …)] [, INTERLEAVE IN PARENT p ON DELETE CASCADE]
//!   [, ROW DELETION POLICY (OLDER_THAN(col, INTERVAL n DAY))]
//!   [TTL INTERVAL '…' ON col]`; GoogleSQL types `BOOL INT64 FLOAT64
//!   STRING(n|MAX) BYTES(n|MAX) TIMESTAMP`, PostgreSQL types `boolean bigint
//!   int8 float8 double precision varchar(n) text bytea timestamptz`, and a
//!   PostgreSQL column's own `PRIMARY KEY`;
//! * `CREATE INDEX name ON t (col, …)` (in the request that creates `t`);
//! * `ALTER TABLE t ADD | REPLACE ROW DELETION POLICY (OLDER_THAN(…))`,
//!   `ALTER TABLE t DROP ROW DELETION POLICY`, and PostgreSQL's
//!   `ALTER TABLE t ADD | ALTER TTL INTERVAL '…' ON col`, `ALTER TABLE t DROP TTL`.
//!
//! Anything else is refused naming the statement and the token. Nothing
//! panics on any input.

use super::ddl_tokens::{Spanned, Tok, show, tokenize};
use super::error::SpannerError;
use ttlstream_engine::spanner::{RowDeletionPolicy, SpannerTableDefinition, SpannerType};

/// One parsed statement.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Statement {
    /// `CREATE TABLE` (table name as written).
    CreateTable(SpannerTableDefinition),
    /// `CREATE INDEX name ON table (columns)`.
    CreateIndex {
        index_name: String,
        table: String,
        columns: Vec<String>,
    },
    /// `ALTER TABLE … ADD`: the table must not have a policy yet.
    AddPolicy {
        table: String,
        policy: RowDeletionPolicy,
    },
    /// `ALTER TABLE … REPLACE` (or PostgreSQL `ALTER TTL`).
    ReplacePolicy {
        table: String,
        policy: RowDeletionPolicy,
    },
    /// `ALTER TABLE … DROP ROW DELETION POLICY` / `DROP TTL`.
    DropPolicy { table: String },
}

struct Parser<'a> {
    text: &'a str,
    toks: Vec<Spanned>,
    at: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok {
        &self.toks[self.at.min(self.toks.len() - 1)].2
    }

    fn next(&mut self) -> Spanned {
        let t = self.toks[self.at.min(self.toks.len() - 1)].clone();
        self.at = (self.at + 1).min(self.toks.len() - 1);
        t
    }

    fn err(&self, expected: &str) -> String {
        let (pos, _, t) = &self.toks[self.at.min(self.toks.len() - 1)];
        format!("at byte {pos}: expected {expected}, found {}", show(t))
    }

    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Word(w) if w.eq_ignore_ascii_case(kw))
    }

    fn eat_kw(&mut self, kw: &str) -> bool {
        let yes = self.is_kw(kw);
        if yes {
            self.next();
        }
        yes
    }

    fn kw(&mut self, kw: &str) -> Result<(), String> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            Err(self.err(&format!("`{kw}`")))
        }
    }

    fn eat_punct(&mut self, c: char) -> bool {
        let yes = *self.peek() == Tok::Punct(c);
        if yes {
            self.next();
        }
        yes
    }

    fn punct(&mut self, c: char) -> Result<(), String> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.err(&format!("`{c}`")))
        }
    }

    fn ident(&mut self, what: &str) -> Result<String, String> {
        match self.peek().clone() {
            Tok::Word(w) | Tok::Quoted(w) if !w.is_empty() => {
                self.next();
                Ok(w)
            }
            _ => Err(self.err(what)),
        }
    }

    /// `( a, b, … )`, each name optionally followed by ASC or DESC.
    fn name_list(&mut self, what: &str) -> Result<Vec<String>, String> {
        self.punct('(')?;
        let mut out = vec![self.ident(what)?];
        let _ = self.eat_kw("ASC") || self.eat_kw("DESC");
        while self.eat_punct(',') {
            out.push(self.ident(what)?);
            let _ = self.eat_kw("ASC") || self.eat_kw("DESC");
        }
        self.punct(')')?;
        Ok(out)
    }

    /// The policy clause from the current token to its end, handed to the
    /// engine's parser: GoogleSQL `ROW DELETION POLICY ( … )` (balanced
    /// parentheses) or PostgreSQL `TTL INTERVAL '…' ON col`.
    fn policy(&mut self) -> Result<RowDeletionPolicy, String> {
        let start = self.toks[self.at].0;
        let mut end = start;
        if self.is_kw("TTL") {
            for _ in 0..5 {
                end = self.next().1;
            }
        } else {
            for kw in ["ROW", "DELETION", "POLICY"] {
                self.kw(kw)?;
            }
            let mut depth = 0usize;
            loop {
                let (_, e, t) = self.next();
                end = e;
                match t {
                    Tok::Punct('(') => depth += 1,
                    Tok::Punct(')') if depth <= 1 => break,
                    Tok::Punct(')') => depth -= 1,
                    Tok::End => break,
                    _ => {}
                }
                if depth == 0 {
                    break;
                }
            }
        }
        RowDeletionPolicy::parse(&self.text[start..end]).map_err(|e| e.to_string())
    }

    fn column_type(&mut self) -> Result<SpannerType, String> {
        let (_, _, t) = self.next();
        let Tok::Word(w) = &t else {
            self.at -= 1;
            return Err(self.err("a column type"));
        };
        let ty = match w.to_ascii_lowercase().as_str() {
            "bool" | "boolean" => SpannerType::Bool,
            "int64" | "bigint" | "int8" => SpannerType::Int64,
            "float64" | "float8" => SpannerType::Float64,
            "double" => {
                self.kw("PRECISION")?;
                SpannerType::Float64
            }
            "string" | "varchar" | "text" | "character" => {
                let _ = self.eat_kw("VARYING");
                SpannerType::String
            }
            "bytes" | "bytea" => SpannerType::Bytes,
            "timestamp" | "timestamptz" => {
                if self.eat_kw("WITH") {
                    self.kw("TIME")?;
                    self.kw("ZONE")?;
                }
                SpannerType::Timestamp
            }
            _ => {
                self.at -= 1;
                return Err(self.err(
                    "a supported column type (BOOL, INT64, FLOAT64, STRING, BYTES, TIMESTAMP or their PostgreSQL names)",
                ));
            }
        };
        // A length: STRING(MAX), BYTES(100), varchar(64).
        if self.eat_punct('(') {
            match self.next().2 {
                Tok::Int(_) => {}
                Tok::Word(w) if w.eq_ignore_ascii_case("MAX") => {}
                _ => {
                    self.at -= 1;
                    return Err(self.err("a length or MAX"));
                }
            }
            self.punct(')')?;
        }
        Ok(ty)
    }

    fn create_table(&mut self) -> Result<Statement, String> {
        let name = self.ident("a table name")?;
        let mut def = SpannerTableDefinition::new(&name);
        self.punct('(')?;
        loop {
            if self.is_kw("PRIMARY") {
                self.next();
                self.kw("KEY")?;
                def.primary_key = self.name_list("a key column")?;
            } else if self.is_kw("CONSTRAINT") {
                return Err(self.err("a column (constraints are not supported)"));
            } else if *self.peek() != Tok::Punct(')') {
                let col = self.ident("a column name")?;
                let ty = self.column_type()?;
                def = def.column(&col, ty);
                loop {
                    if self.eat_kw("NOT") {
                        self.kw("NULL")?;
                    } else if self.eat_kw("PRIMARY") {
                        self.kw("KEY")?;
                        def.primary_key = vec![col.clone()];
                    } else {
                        break;
                    }
                }
            }
            if !self.eat_punct(',') {
                break;
            }
        }
        self.punct(')')?;
        if self.eat_kw("PRIMARY") {
            self.kw("KEY")?;
            def.primary_key = self.name_list("a key column")?;
        }
        loop {
            let _ = self.eat_punct(',');
            if self.eat_kw("INTERLEAVE") {
                self.kw("IN")?;
                self.kw("PARENT")?;
                let parent = self.ident("a parent table name")?;
                self.kw("ON")?;
                self.kw("DELETE")?;
                if !self.eat_kw("CASCADE") {
                    return Err(self.err("`CASCADE` (only ON DELETE CASCADE is supported)"));
                }
                def.interleave_in_parent = Some(parent);
            } else if self.is_kw("ROW") || self.is_kw("TTL") {
                def.row_deletion_policy = Some(self.policy()?);
            } else {
                break;
            }
        }
        Ok(Statement::CreateTable(def))
    }

    fn create_index(&mut self) -> Result<Statement, String> {
        let index_name = self.ident("an index name")?;
        self.kw("ON")?;
        let table = self.ident("a table name")?;
        let columns = self.name_list("an indexed column")?;
        Ok(Statement::CreateIndex {
            index_name,
            table,
            columns,
        })
    }

    fn alter_table(&mut self) -> Result<Statement, String> {
        let table = self.ident("a table name")?;
        if self.eat_kw("DROP") {
            if self.eat_kw("TTL") {
                return Ok(Statement::DropPolicy { table });
            }
            for kw in ["ROW", "DELETION", "POLICY"] {
                self.kw(kw)?;
            }
            return Ok(Statement::DropPolicy { table });
        }
        let replace = if self.eat_kw("ADD") {
            false
        } else if self.eat_kw("REPLACE") || self.is_kw("ALTER") {
            let _ = self.eat_kw("ALTER");
            true
        } else {
            return Err(self.err("ADD, REPLACE, ALTER or DROP (a row deletion policy)"));
        };
        let policy = self.policy()?;
        Ok(if replace {
            Statement::ReplacePolicy { table, policy }
        } else {
            Statement::AddPolicy { table, policy }
        })
    }

    fn statement(&mut self) -> Result<Statement, String> {
        let st = if self.eat_kw("CREATE") {
            if self.eat_kw("TABLE") {
                self.create_table()?
            } else if self.eat_kw("INDEX") {
                self.create_index()?
            } else {
                return Err(self.err("TABLE or INDEX after CREATE"));
            }
        } else if self.eat_kw("ALTER") {
            self.kw("TABLE")?;
            self.alter_table()?
        } else {
            return Err(self.err("CREATE TABLE, CREATE INDEX or ALTER TABLE"));
        };
        let _ = self.eat_punct(';');
        if *self.peek() != Tok::End {
            return Err(self.err("the end of the statement"));
        }
        Ok(st)
    }
}

/// Parses statement number `index` of a request.
///
/// # Errors
///
/// `INVALID_ARGUMENT` naming the statement, the byte and the token.
pub(crate) fn parse(index: usize, text: &str) -> Result<Statement, SpannerError> {
    let bad = |m: String| SpannerError::invalid(format!("statements[{index}]: {m}"));
    let toks = tokenize(text).map_err(bad)?;
    let mut p = Parser { text, toks, at: 0 };
    p.statement().map_err(bad)
}

/// The GoogleSQL DDL of a table and its indexes, as `getDdl` answers it.
pub(crate) fn render(def: &SpannerTableDefinition) -> Vec<String> {
    let ty = |t: SpannerType| match t {
        SpannerType::String => "STRING(MAX)",
        SpannerType::Bytes => "BYTES(MAX)",
        other => other.as_str(),
    };
    let columns: Vec<String> = def
        .columns
        .iter()
        .map(|c| {
            let not_null = if def.primary_key.contains(&c.name) {
                " NOT NULL"
            } else {
                ""
            };
            format!("  {} {}{not_null},", c.name, ty(c.spanner_type))
        })
        .collect();
    let mut table = format!(
        "CREATE TABLE {} (\n{}\n) PRIMARY KEY({})",
        def.table_name,
        columns.join("\n"),
        def.primary_key.join(", ")
    );
    if let Some(parent) = &def.interleave_in_parent {
        table.push_str(&format!(
            ",\n  INTERLEAVE IN PARENT {parent} ON DELETE CASCADE"
        ));
    }
    if let Some(p) = &def.row_deletion_policy {
        table.push_str(&format!(",\n  {p}"));
    }
    let mut out = vec![table];
    for ix in &def.indexes {
        out.push(format!(
            "CREATE INDEX {} ON {}({})",
            ix.index_name,
            def.table_name,
            ix.columns.join(", ")
        ));
    }
    out
}

#[cfg(test)]
#[path = "ddl_tests.rs"]
mod tests;
