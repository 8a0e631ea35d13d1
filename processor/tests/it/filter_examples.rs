//! The `ttlstream filter test` examples of `filters/PATTERNS.md` ("Spanner and
//! Tablestore change records"), run as written from the repository's root:
//! each `$ ttlstream filter test ...` line, and the line after it as its output.

use std::path::Path;
use std::process::Command;

#[test]
fn patterns_md_filter_test_examples_print_what_they_show() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let text = std::fs::read_to_string(root.join("filters/PATTERNS.md")).expect("PATTERNS.md");
    let lines: Vec<&str> = text.lines().collect();
    let mut examples = 0;
    for (i, line) in lines.iter().enumerate() {
        let Some(command) = line.strip_prefix("$ ttlstream filter test ") else {
            continue;
        };
        let expected = lines.get(i + 1).expect("an output line after the command");
        let mut args = vec!["filter", "test"];
        args.extend(command.split_whitespace());
        let out = Command::new(env!("CARGO_BIN_EXE_ttlstream"))
            .current_dir(&root)
            .args(&args)
            .output()
            .expect("run ttlstream");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            stdout.trim_end(),
            *expected,
            "{line}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        examples += 1;
    }
    assert!(
        examples >= 4,
        "the Spanner and Tablestore examples are there"
    );
}
