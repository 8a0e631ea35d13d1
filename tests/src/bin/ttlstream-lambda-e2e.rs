//! `ttlstream-lambda` under another name, so this crate's tests can start the
//! Lambda function as a process (see `ttlstream-e2e`).

fn main() -> std::process::ExitCode {
    ttlstream::lambda::main()
}
