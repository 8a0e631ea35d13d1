//! # ttlstream-server
//!
//! The ttlstream engine ([`ttlstream_engine`]) behind a DynamoDB-compatible
//! HTTP API (AWS JSON 1.0, "DynamoDB low-level API"), so applications write
//! with their usual AWS SDK by pointing its endpoint URL at this server.
//! `ttlstream serve` runs it. It uses only the engine's public API, as any
//! other user of the engine would; it is not needed to embed the engine, and
//! the Lambda binary (`ttlstream-lambda`) does not link it.
//!
//! Operations served: CreateTable, DescribeTable, ListTables, UpdateTable
//! (stream on/off, `BillingMode`, `ProvisionedThroughput`), DeleteTable,
//! PutItem, GetItem, UpdateItem, DeleteItem, Query, Scan (parallel:
//! `Segment` / `TotalSegments`), BatchWriteItem (25 requests),
//! BatchGetItem (100 keys, 16 MB answer, the rest in `UnprocessedKeys`),
//! UpdateTimeToLive, DescribeTimeToLive, TagResource, UntagResource,
//! ListTagsOfResource; the legacy conditional parameters (`Expected`,
//! `ConditionalOperator`, `AttributeUpdates`, `AttributesToGet`,
//! `KeyConditions`, `QueryFilter`, `ScanFilter`) as DynamoDB documents
//! them. A request member this server does not implement is refused by
//! name (`ValidationException`), never dropped. Errors are AWS's shapes
//! ([`ApiError`]), with DynamoDB's messages for the cases clients match on.
//!
//! The same listener serves the two other TTL models: Tablestore's
//! operations as JSON at `POST /<Operation>` (`tablestore/`,
//! `TABLESTORE.md`), and a subset of Spanner's REST API v1 under
//! `/v1/projects/{project}/instances/{instance}/` (`spanner/`,
//! `SPANNER.md`), each with its service's error shape.
//!
//! ## Limits of this slice
//!
//! * SigV4 signatures are verified only when [`ServerOptions::credentials`]
//!   are set (one access key; no session tokens, no IAM policies); without
//!   them any signature (or none) is accepted, so [`Server::bind`] refuses
//!   any address that is not loopback ([`ServeError::NotLoopback`]).
//! * Admin paths for tests ([`ADMIN_PREFIX`]): sweep now, read or move a
//!   manual clock.
//! * The DynamoDB Streams API (ListStreams, DescribeStream,
//!   GetShardIterator, GetRecords) is served on the same endpoint
//!   (`X-Amz-Target: DynamoDBStreams_20120810.<Op>`); see `streams.rs`.
//! * Not served: transactions, PartiQL, UpdateTable index changes,
//!   backups, global tables, deletion protection, table classes, SSE.
//! * Table and stream ARNs, and the `awsRegion` of stream records, carry
//!   the region of the request's SigV4 credential scope (an unsigned
//!   request: [`ServerOptions::region`]) and account `000000000000`; an ARN
//!   in a request may name any region. `LatestStreamArn` /
//!   `LatestStreamLabel` name the table's newest stream.
//!
//! ## Example
//!
//! ```no_run
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! use ttlstream_engine::{Engine, EngineOptions};
//! use ttlstream_server::{Server, ServerOptions};
//! let engine = Engine::open("/var/lib/ttlstream", EngineOptions::default())?;
//! let server = Server::bind(engine, ServerOptions::default()).await?;
//! println!("listening on http://{}", server.local_addr()?);
//! server.run(std::future::pending()).await?;
//! # Ok(()) }
//! ```

mod admin;
mod admission;
mod arn;
mod batch;
mod capacity;
mod create_table;
mod dynamodb;
mod error;
mod items;
mod protocol;
mod reads;
mod shapes;
mod sigv4;
mod spanner;
mod streams;
mod table_update;
mod tables;
mod tablestore;
mod tags;
mod ttl;

pub use admin::ADMIN_PREFIX;
pub use batch::{MAX_BATCH_GET_KEYS, MAX_BATCH_GET_RESPONSE_BYTES, MAX_BATCH_WRITE_REQUESTS};
pub use error::{ApiError, ErrorKind};
pub use protocol::{CONTENT_TYPE, TARGET_PREFIX};
pub use sigv4::{Credentials, MAX_CLOCK_SKEW, ParseCredentialsError};
pub use streams::{SHARD_ITERATOR_LIFETIME_MILLIS, STREAMS_TARGET_PREFIX};

use axum::Router;
use axum::routing::{get, post};
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use ttlstream_engine::{Engine, ManualClock};

/// The default request body limit: 16 MiB (DynamoDB's largest request,
/// BatchWriteItem, is 16 MB).
pub const MAX_REQUEST_BODY_BYTES: usize = 16 * 1024 * 1024;

/// How the server listens.
#[derive(Clone, Debug)]
pub struct ServerOptions {
    /// Address to listen on; must be loopback (`127.0.0.1`, `::1`) unless
    /// `credentials` are set. Port 0 picks a free port.
    /// Default: `127.0.0.1:8000`.
    pub listen: SocketAddr,
    /// When set, every request (the admin paths too) must carry a valid
    /// SigV4 signature made with these credentials, and the server may
    /// listen on any address. Default: `None` (signatures not checked,
    /// loopback only).
    pub credentials: Option<Credentials>,
    /// The engine's clock when it is manual, so that `POST /_ttlstream/clock`
    /// can move it (see [`ADMIN_PREFIX`]). Default: `None`.
    pub manual_clock: Option<Arc<ManualClock>>,
    /// Largest request body accepted, in bytes; a larger one is answered
    /// HTTP 413 with a `ValidationException`. Default: [`MAX_REQUEST_BODY_BYTES`].
    pub max_request_body_bytes: usize,
    /// How long (engine clock) a TTL change stays `ENABLING` / `DISABLING`,
    /// during which another UpdateTimeToLive on the table is refused, as
    /// DynamoDB does for up to an hour. Zero (the default): none, so
    /// DescribeTimeToLive reports `ENABLED` at once, as the service answers
    /// in practice. Default: [`DEFAULT_TTL_TRANSITION`].
    pub ttl_transition: Duration,
    /// The region of ARNs and stream records for a request that is not
    /// signed (a signed request gets the region it signed for). Default:
    /// [`DEFAULT_REGION`].
    pub region: String,
}

/// The default [`ServerOptions::ttl_transition`]: none.
pub const DEFAULT_TTL_TRANSITION: Duration = Duration::ZERO;

/// The default [`ServerOptions::region`]: `us-east-1`.
pub const DEFAULT_REGION: &str = "us-east-1";

impl Default for ServerOptions {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8000)),
            max_request_body_bytes: MAX_REQUEST_BODY_BYTES,
            ttl_transition: DEFAULT_TTL_TRANSITION,
            region: DEFAULT_REGION.to_string(),
            credentials: None,
            manual_clock: None,
        }
    }
}

/// Errors from [`Server::bind`] and [`Server::run`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The address is not loopback and no credentials are configured.
    #[error(
        "refusing to listen on {addr}: without credentials to verify SigV4 signatures against, the server listens on loopback only (127.0.0.1 or ::1)"
    )]
    NotLoopback {
        /// The refused address.
        addr: SocketAddr,
    },
    /// Binding or serving failed.
    #[error("cannot serve on {addr}: {source}")]
    Io {
        /// The listen address.
        addr: SocketAddr,
        /// What failed.
        #[source]
        source: std::io::Error,
    },
}

#[derive(Clone)]
struct AppState {
    engine: Engine,
    max_request_body_bytes: usize,
    ttl_transition: Duration,
    region: String,
    credentials: Option<Arc<Credentials>>,
    manual_clock: Option<Arc<ManualClock>>,
}

/// The axum router serving the DynamoDB API on `POST /`, Tablestore's at
/// `POST /<Operation>`, Spanner's under `/v1/`, and the admin
/// paths under [`ADMIN_PREFIX`] for `engine` (`options.listen` is not used
/// here). Serve it with `into_make_service_with_connect_info::<SocketAddr>()`:
/// the admin paths check the peer address.
pub fn router(engine: Engine, options: &ServerOptions) -> Router {
    Router::new()
        .route("/", post(protocol::handle))
        .route("/_ttlstream/sweep", post(admin::sweep))
        .route("/_ttlstream/clock", get(admin::clock).post(admin::clock))
        .route("/v1/{*path}", axum::routing::any(spanner::handle))
        .merge(tablestore::routes())
        .with_state(AppState {
            engine,
            max_request_body_bytes: options.max_request_body_bytes,
            ttl_transition: options.ttl_transition,
            region: options.region.clone(),
            credentials: options.credentials.clone().map(Arc::new),
            manual_clock: options.manual_clock.clone(),
        })
}

/// A bound, not yet running, server.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    router: Router,
}

impl Server {
    /// Checks the address and binds it.
    ///
    /// # Errors
    ///
    /// [`ServeError::NotLoopback`] for a non-loopback address without
    /// credentials;
    /// [`ServeError::Io`] when binding fails.
    pub async fn bind(engine: Engine, options: ServerOptions) -> Result<Server, ServeError> {
        let addr = options.listen;
        if !addr.ip().is_loopback() && options.credentials.is_none() {
            return Err(ServeError::NotLoopback { addr });
        }
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Io { addr, source })?;
        Ok(Server {
            listener,
            router: router(engine, &options),
        })
    }

    /// The bound address (with the port picked for port 0).
    ///
    /// # Errors
    ///
    /// The OS error if the socket has no address.
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves until `shutdown` completes, then finishes in-flight requests.
    ///
    /// # Errors
    ///
    /// [`ServeError::Io`] when accepting fails fatally.
    pub async fn run(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let addr = self
            .listener
            .local_addr()
            .unwrap_or_else(|_| SocketAddr::from(([127, 0, 0, 1], 0)));
        axum::serve(
            self.listener,
            self.router
                .into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(shutdown)
        .await
        .map_err(|source| ServeError::Io { addr, source })
    }
}
