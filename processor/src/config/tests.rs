//! Tests of config parsing and validation.

use super::*;

const MINIMAL: &str = r#"
[source.engine]
data_dir = "data"
table = "SessionData"

[checkpoint]
dir = "state"

[[routes]]
name = "ttl"
filter = "f.json"
sinks = ["archive"]

[sinks.archive.file]
path = "archive"
"#;

#[test]
fn minimal_config_parses_with_defaults() {
    let config = Config::parse(MINIMAL, Path::new("c.toml")).expect("valid");
    assert_eq!(config.metrics.period_secs, 60);
    assert_eq!(config.batch.max_records, 1000);
    assert_eq!(config.routes[0].sinks, vec!["archive".to_string()]);
}

#[test]
fn unknown_key_names_key_and_file() {
    let text = MINIMAL.replace("[checkpoint]", "[checkpoint]\ndirr = \"x\"");
    let err = Config::parse(&text, Path::new("conf/ttl.toml")).expect_err("typo");
    let message = err.to_string();
    assert!(message.contains("conf/ttl.toml"), "{message}");
    assert!(message.contains("dirr"), "{message}");
}

#[test]
fn the_engine_source_names_its_ttl_model() {
    use crate::sources::engine::TtlModel;
    let model_of = |text: &str| match Config::parse(text, Path::new("c.toml")) {
        Ok(Config {
            source: Some(SourceConfig::Engine(source)),
            ..
        }) => Ok(source.model),
        Ok(_) => panic!("an engine source"),
        Err(err) => Err(err.to_string()),
    };
    assert_eq!(model_of(MINIMAL), Ok(TtlModel::Dynamodb), "the default");
    for (name, model) in [
        ("dynamodb", TtlModel::Dynamodb),
        ("tablestore", TtlModel::Tablestore),
        ("spanner", TtlModel::Spanner),
    ] {
        let text = MINIMAL.replace("table = ", &format!("model = \"{name}\"\ntable = "));
        assert_eq!(model_of(&text), Ok(model));
    }
    let text = MINIMAL.replace("table = ", "model = \"cassandra\"\ntable = ");
    let message = model_of(&text).expect_err("an unknown model");
    assert!(message.contains("c.toml"), "{message}");
    assert!(message.contains("cassandra"), "{message}");
    assert!(message.contains("`tablestore`, `spanner`"), "{message}");
}

#[test]
fn unknown_sink_kind_is_an_error() {
    let text = MINIMAL.replace("[sinks.archive.file]", "[sinks.archive.ftp]");
    let err = Config::parse(&text, Path::new("c.toml")).expect_err("unknown variant");
    assert!(err.to_string().contains("ftp"), "{err}");
}

#[test]
fn s3_sink_mistakes_name_the_sink_and_field() {
    let s3 = |body: &str| {
        let text = MINIMAL.replace(
            "[sinks.archive.file]\npath = \"archive\"",
            &format!("[sinks.archive.s3]\n{body}"),
        );
        Config::parse(&text, Path::new("c.toml"))
    };
    let ok = s3("bucket = \"b\"\ncompression = \"zstd\"").expect("valid");
    assert!(
        matches!(&ok.sinks["archive"], SinkConfig::S3(c) if c.template().as_str().ends_with(".ndjson.zst"))
    );
    let err = s3("bucket = \"s3://b/\"").expect_err("bucket with scheme");
    assert!(err.to_string().contains("sinks.archive.s3.bucket"), "{err}");
    let err =
        s3("bucket = \"b\"\nkey_template = \"x/{date}.ndjson\"").expect_err("batches overwrite");
    assert!(err.to_string().contains("{first_sequence}"), "{err}");
    let err = s3("bucket = \"b\"\nkey_template = \"x/{dat}\"").expect_err("unknown placeholder");
    assert!(err.to_string().contains("{dat}"), "{err}");
    let err = s3("bucket = \"b\"\nssekms_key_id = \"k\"").expect_err("kms id without kms");
    assert!(err.to_string().contains("aws:kms"), "{err}");
}

#[test]
fn dead_letter_sink_must_exist_and_not_be_routed() {
    let text = format!("{MINIMAL}\n[dead_letter]\nsink = \"archive\"\n");
    let err = Config::parse(&text, Path::new("c.toml")).expect_err("routed");
    assert!(err.to_string().contains("dead_letter.sink"), "{err}");
    let text = format!("{MINIMAL}\n[dead_letter]\nsink = \"nowhere\"\n");
    let err = Config::parse(&text, Path::new("c.toml")).expect_err("missing");
    assert!(err.to_string().contains("no sink named `nowhere`"), "{err}");
    let text = format!(
        "{MINIMAL}\n[sinks.failed.file]\npath = \"dlq\"\n\n[dead_letter]\nsink = \"failed\"\n"
    );
    Config::parse(&text, Path::new("c.toml")).expect("valid dead letter");
}

#[test]
fn route_to_missing_sink_is_an_error() {
    let text = MINIMAL.replace("sinks = [\"archive\"]", "sinks = [\"archiv\"]");
    let err = Config::parse(&text, Path::new("c.toml")).expect_err("missing sink");
    assert!(err.to_string().contains("no sink named `archiv`"), "{err}");
}

#[test]
fn sidecar_needs_a_source_and_the_lambda_does_not() {
    let without = MINIMAL.replace(
        "[source.engine]\ndata_dir = \"data\"\ntable = \"SessionData\"\n",
        "",
    );
    let err = Config::parse(&without, Path::new("c.toml")).expect_err("no source");
    assert!(err.to_string().contains("source: missing"), "{err}");
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("f.json"), "{}").expect("filter");
    let path = dir.path().join("lambda.toml");
    std::fs::write(
        &path,
        without.replace("[checkpoint]\ndir = \"state\"\n", ""),
    )
    .expect("write");
    let config = Config::load_lambda(&path).expect("lambda config");
    assert!(config.source.is_none() && config.checkpoint.is_none());
    std::fs::write(&path, MINIMAL).expect("write");
    let config = Config::load_lambda(&path).expect("a sidecar file serves too");
    assert!(config.source.is_none(), "the Lambda ignores [source]");
}

#[test]
fn file_and_dynamodb_streams_sources_parse() {
    let file = MINIMAL.replace(
        "[source.engine]\ndata_dir = \"data\"\ntable = \"SessionData\"",
        "[source.file]\npath = \"replay.ndjson\"\non_malformed = \"skip\"",
    );
    let config = Config::parse(&file, Path::new("c.toml")).expect("file source");
    assert!(matches!(config.source, Some(SourceConfig::File(_))));
    let streams = MINIMAL.replace(
        "[source.engine]\ndata_dir = \"data\"\ntable = \"SessionData\"",
        "[source.dynamodb_streams]\ntable = \"SessionData\"\nendpoint_url = \"http://127.0.0.1:8000\"",
    );
    let config = Config::parse(&streams, Path::new("c.toml")).expect("streams source");
    assert!(matches!(
        config.source,
        Some(SourceConfig::DynamodbStreams(_))
    ));
    let typo = streams.replace("endpoint_url", "endpoint");
    let err = Config::parse(&typo, Path::new("c.toml")).expect_err("typo");
    assert!(err.to_string().contains("endpoint"), "{err}");
}

#[test]
fn shipped_example_config_loads_and_its_files_exist() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../deploy/config/ttlstream.toml");
    let config = Config::load(&path).expect("deploy/config/ttlstream.toml is valid");
    let filter = config.routes[0].filter.as_ref().expect("filter");
    assert!(filter.exists(), "{}", filter.display());
    assert!(config.alarms[0].file.exists());
}

#[test]
fn relative_paths_resolve_against_the_config_directory() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("f.json"), "{}").expect("filter");
    let path = dir.path().join("ttl.toml");
    std::fs::write(&path, MINIMAL).expect("write");
    let config = Config::load(&path).expect("load");
    let checkpoint = config.checkpoint.expect("checkpoint");
    assert_eq!(checkpoint.dir, dir.path().join("state"));
    assert_eq!(config.routes[0].filter, Some(dir.path().join("f.json")));
}

#[test]
fn a_missing_file_is_named_with_the_key_and_line_that_refer_to_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("ttl.toml");
    // MINIMAL's `filter = "f.json"` is on line 11.
    std::fs::write(&path, MINIMAL).expect("write");
    let err = Config::load(&path).expect_err("f.json is missing");
    let message = err.to_string();
    assert!(matches!(err, ConfigError::Invalid { .. }), "{message}");
    assert!(
        message.starts_with(&format!(
            "{}: line 11: routes[0] (ttl).filter: cannot read ",
            path.display()
        )),
        "{message}"
    );
    assert!(message.contains("f.json"), "{message}");

    std::fs::write(dir.path().join("f.json"), "{}").expect("filter");
    let alarm = format!("{MINIMAL}\n[[alarms]]\nfile = \"alarms/a.json\"\n");
    std::fs::write(&path, alarm).expect("write");
    let err = Config::load(&path).expect_err("the alarm file is missing");
    assert!(
        err.to_string()
            .contains("line 18: alarms[0].file: cannot read "),
        "{err}"
    );

    let replay = MINIMAL.replace(
        "[source.engine]\ndata_dir = \"data\"\ntable = \"SessionData\"",
        "[source.file]\npath = \"replay.ndjson\"",
    );
    std::fs::write(&path, replay).expect("write");
    let err = Config::load(&path).expect_err("the replay file is missing");
    assert!(
        err.to_string()
            .contains("line 3: source.file.path: cannot read "),
        "{err}"
    );
}

/// The sweeper belongs to the engine's owner: `[engine]` owns a data
/// directory (and its sweeper), `[source.engine]` only reads, from
/// `[engine]` or from an engine another process owns; the sweeper's keys
/// are `[engine]`'s alone.
#[test]
fn engine_section_owns_the_database_and_the_source_only_reads() {
    let owned = MINIMAL.replace(
        "[source.engine]\ndata_dir = \"data\"\n",
        "[engine]\ndata_dir = \"data\"\nsweep_interval_millis = 20\nmax_deletes_per_sweep = 250\ncreate = true\n\n[source.engine]\n",
    );
    let config = Config::parse(&owned, Path::new("c.toml")).expect("[engine]");
    let engine = config.engine.as_ref().expect("[engine]");
    assert_eq!(engine.data_dir, Path::new("data"));
    assert_eq!(engine.sweep_interval_millis, 20);
    assert_eq!(engine.max_deletes_per_sweep.get(), 250);
    assert!(engine.create);
    let Some(SourceConfig::Engine(source)) = &config.source else {
        panic!("[source.engine]");
    };
    assert_eq!(source.data_dir, None);

    let defaults = Config::parse(
        &MINIMAL.replace(
            "[source.engine]\ndata_dir = \"data\"\n",
            "[engine]\ndata_dir = \"data\"\n\n[source.engine]\n",
        ),
        Path::new("c.toml"),
    )
    .expect("[engine] defaults");
    let engine = defaults.engine.expect("[engine]");
    assert_eq!(engine.sweep_interval_millis, 1000);
    assert_eq!(engine.max_deletes_per_sweep.get(), 10_000);
    assert!(!engine.create);
    let zero = owned.replace("max_deletes_per_sweep = 250", "max_deletes_per_sweep = 0");
    let err = Config::parse(&zero, Path::new("c.toml")).expect_err("0 deletes per pass");
    assert!(err.to_string().contains("max_deletes_per_sweep"), "{err}");

    let both = MINIMAL.replace(
        "[source.engine]\n",
        "[engine]\ndata_dir = \"data\"\n\n[source.engine]\n",
    );
    let err = Config::parse(&both, Path::new("c.toml")).expect_err("two data dirs");
    assert!(
        err.to_string()
            .contains("source.engine.data_dir: not allowed with [engine]"),
        "{err}"
    );
    let neither = MINIMAL.replace("data_dir = \"data\"\n", "");
    let err = Config::parse(&neither, Path::new("c.toml")).expect_err("no engine");
    assert!(
        err.to_string().contains("source.engine.data_dir: missing"),
        "{err}"
    );
    for key in [
        "sweep_interval_millis = 0",
        "max_deletes_per_sweep = 10",
        "create = true",
    ] {
        let text = MINIMAL.replace(
            "table = \"SessionData\"\n",
            &format!("table = \"SessionData\"\n{key}\n"),
        );
        let err = Config::parse(&text, Path::new("c.toml")).expect_err("a reader does not sweep");
        let name = key.split(' ').next().unwrap_or_default();
        assert!(err.to_string().contains(name), "{key}: {err}");
    }
}

/// `ttlstream serve --pipeline` runs the pipeline on the engine serve has
/// open: its source is `[source.engine]` without `data_dir`, and `[engine]`
/// (serve owns the engine) or another source is refused by name.
#[test]
fn a_served_pipeline_reads_the_served_engine_only() {
    let served = |text: &str| Config::parse_as(text, Path::new("p.toml"), Role::Served);
    let without_dir = MINIMAL.replace("data_dir = \"data\"\n", "model = \"tablestore\"\n");
    let config = served(&without_dir).expect("[source.engine] without data_dir");
    assert!(matches!(
        config.source,
        Some(SourceConfig::Engine(EngineSourceConfig {
            model: crate::sources::engine::TtlModel::Tablestore,
            data_dir: None,
            ..
        }))
    ));
    let refused = |text: &str| served(text).expect_err("refused").to_string();
    let message = refused(MINIMAL);
    assert!(
        message.contains("p.toml") && message.contains("source.engine.data_dir: not allowed"),
        "{message}"
    );
    let owned = without_dir.replace(
        "[source.engine]",
        "[engine]\ndata_dir = \"d\"\n\n[source.engine]",
    );
    let message = refused(&owned);
    assert!(message.contains("engine: not allowed"), "{message}");
    let file = MINIMAL.replace(
        "[source.engine]\ndata_dir = \"data\"\ntable = \"SessionData\"",
        "[source.file]\npath = \"replay.ndjson\"",
    );
    let message = refused(&file);
    assert!(message.contains("use [source.engine]"), "{message}");
}
