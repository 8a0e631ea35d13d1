//! The DDL tokenizer (`ddl.rs` parses its tokens): words, quoted names,
//! integers, string literals and `( ) , ; =`, each with its byte range.

/// A token.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Word(String),
    Quoted(String),
    Int(String),
    Str(String),
    Punct(char),
    End,
}

/// A token with its byte range in the statement.
pub(super) type Spanned = (usize, usize, Tok);

pub(super) fn tokenize(text: &str) -> Result<Vec<Spanned>, String> {
    let mut out = Vec::new();
    let bytes: Vec<(usize, char)> = text.char_indices().collect();
    let mut i = 0;
    while let Some(&(pos, c)) = bytes.get(i) {
        let end_of = |j: usize| bytes.get(j).map_or(text.len(), |b| b.0);
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        let tok = if c.is_ascii_alphabetic() || c == '_' {
            while bytes
                .get(i)
                .is_some_and(|b| b.1.is_ascii_alphanumeric() || b.1 == '_')
            {
                i += 1;
            }
            Tok::Word(text[pos..end_of(i)].to_string())
        } else if c.is_ascii_digit() {
            while bytes.get(i).is_some_and(|b| b.1.is_ascii_digit()) {
                i += 1;
            }
            Tok::Int(text[pos..end_of(i)].to_string())
        } else if matches!(c, '`' | '"' | '\'') {
            i += 1;
            while bytes.get(i).is_some_and(|b| b.1 != c) {
                i += 1;
            }
            if bytes.get(i).is_none() {
                return Err(format!("at byte {pos}: no closing {c}"));
            }
            let inner = text[end_of(start + 1)..end_of(i)].to_string();
            i += 1;
            if c == '\'' {
                Tok::Str(inner)
            } else {
                Tok::Quoted(inner)
            }
        } else if matches!(c, '(' | ')' | ',' | ';' | '=') {
            i += 1;
            Tok::Punct(c)
        } else {
            return Err(format!("at byte {pos}: unexpected `{c}`"));
        };
        out.push((pos, end_of(i), tok));
    }
    out.push((text.len(), text.len(), Tok::End));
    Ok(out)
}

pub(super) fn show(t: &Tok) -> String {
    match t {
        Tok::Word(w) | Tok::Quoted(w) | Tok::Int(w) => format!("`{w}`"),
        Tok::Str(s) => format!("'{s}'"),
        Tok::Punct(c) => format!("`{c}`"),
        Tok::End => "the end of the statement".to_string(),
    }
}
