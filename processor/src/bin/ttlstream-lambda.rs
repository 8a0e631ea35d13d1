//! `ttlstream-lambda`: the Lambda bootstrap (cargo-lambda, SAM `provided.al2023`).
//! Everything is in [`ttlstream::lambda`].

#[tokio::main]
async fn main() -> Result<(), lambda_runtime::Error> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .without_time()
        .init();
    ttlstream::lambda::run().await
}
