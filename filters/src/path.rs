//! JSON paths for error messages: `$`, `$.userIdentity.type`, `$["a.b"][0]`.

/// `parent.name`, or `parent["name"]` when `name` is not a plain identifier.
pub(crate) fn child(parent: &str, name: &str) -> String {
    let plain = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '$');
    if plain {
        format!("{parent}.{name}")
    } else {
        let quoted = serde_json::to_string(name).unwrap_or_else(|_| format!("{name:?}"));
        format!("{parent}[{quoted}]")
    }
}

/// `parent[index]`.
pub(crate) fn index(parent: &str, index: usize) -> String {
    format!("{parent}[{index}]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_names_use_dots_and_others_use_brackets() {
        assert_eq!(child("$", "userIdentity"), "$.userIdentity");
        assert_eq!(child("$", "x-limit"), "$.x-limit");
        assert_eq!(child("$", "a.b"), "$[\"a.b\"]");
        assert_eq!(child("$", ""), "$[\"\"]");
        assert_eq!(index("$.a", 3), "$.a[3]");
    }
}
