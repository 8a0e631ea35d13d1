//! Opening a directory of an older format version: format version 1 kept
//! the expiry index in keyspace `expiry` with longer keys (table id u32 BE
//! ++ instant i64 with its sign bit flipped, BE ++ item key); version 2
//! keeps it in `expiry2` with the short keys of [`crate::expiry_key`]. The
//! index holds the same entries, so they are copied key by key, then the
//! format version is written, then the old keyspace is dropped. A crash in
//! between is harmless: before the version is written the next open copies
//! again (the same keys), after it only the drop is left to do.

use crate::error::StorageError;
use crate::storage::{EXPIRY_V1, FORMAT_KEY, FORMAT_VERSION, Store, corrupt, expiry_key};

/// Entries copied per batch.
const CHUNK: usize = 10_000;

/// Brings a directory of format version 1 to the current version: copies
/// its expiry index, writes the version, drops the old keyspace.
///
/// # Errors
///
/// [`StorageError::Io`]; [`StorageError::Corrupt`] for a version-1 expiry
/// key shorter than 12 bytes.
pub(crate) fn from_v1(store: &Store) -> Result<(), StorageError> {
    let mut batch = store.db.batch();
    if store.db.keyspace_exists(EXPIRY_V1) {
        let old = store
            .db
            .keyspace(EXPIRY_V1, fjall::KeyspaceCreateOptions::default)?;
        for guard in old.iter() {
            let key = guard.key()?;
            let (id, at, pk) = decode_v1(&key)?;
            batch.insert(&store.expiry, expiry_key(id, at, pk), Vec::<u8>::new());
            if batch.len() >= CHUNK {
                std::mem::replace(&mut batch, store.db.batch()).commit()?;
            }
        }
    }
    batch.insert(&store.meta, FORMAT_KEY, FORMAT_VERSION.as_bytes());
    batch.commit()?;
    drop_v1(store)
}

/// Drops a version-1 expiry keyspace left by a crash after the version was
/// written (nothing to do in any other directory).
///
/// # Errors
///
/// [`StorageError::Io`].
pub(crate) fn drop_v1(store: &Store) -> Result<(), StorageError> {
    if store.db.keyspace_exists(EXPIRY_V1) {
        let old = store
            .db
            .keyspace(EXPIRY_V1, fjall::KeyspaceCreateOptions::default)?;
        store.db.delete_keyspace(old)?;
    }
    Ok(())
}

/// Splits a format-version-1 expiry key into (table id, instant, item key).
fn decode_v1(key: &[u8]) -> Result<(u32, i64, &[u8]), StorageError> {
    let id = key.get(..4).and_then(|b| <[u8; 4]>::try_from(b).ok());
    let at = key.get(4..12).and_then(|b| <[u8; 8]>::try_from(b).ok());
    match (id, at, key.get(12..)) {
        (Some(id), Some(at), Some(pk)) => Ok((
            u32::from_be_bytes(id),
            (u64::from_be_bytes(at) ^ (1 << 63)) as i64,
            pk,
        )),
        _ => Err(corrupt(
            EXPIRY_V1,
            "format-1 expiry key",
            "shorter than 12 bytes",
        )),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::storage::{EXPIRY, META, decode_expiry_key};
    use crate::{
        AttributeValue, Engine, EngineOptions, Item, ManualClock, ScalarAttributeType,
        StreamViewType, TableDefinition, TimeToLiveSpecification,
    };
    use fjall::KeyspaceCreateOptions;
    use std::collections::HashMap;
    use std::sync::Arc;
    use std::time::Duration;

    fn item(pk: &str, ttl: Option<i64>) -> Item {
        let mut item = HashMap::from([("pk".to_string(), AttributeValue::S(pk.into()))]);
        if let Some(ttl) = ttl {
            item.insert("ttl".to_string(), AttributeValue::N(ttl.to_string()));
        }
        item.into()
    }

    /// Rewrites the expiry index of the engine directory `dir` as format
    /// version 1 kept it; entries whose item key starts with `keep` stay in
    /// the new keyspace too, as a crash in the middle of a copy leaves them.
    fn rewrite_as_format_1(dir: &std::path::Path, keep: &[u8]) {
        let db = fjall::Database::builder(dir).open().unwrap();
        let meta = db.keyspace(META, KeyspaceCreateOptions::default).unwrap();
        let new = db.keyspace(EXPIRY, KeyspaceCreateOptions::default).unwrap();
        let old = db
            .keyspace(EXPIRY_V1, KeyspaceCreateOptions::default)
            .unwrap();
        let keys: Vec<fjall::Slice> = new.iter().map(|g| g.key().unwrap()).collect();
        assert_eq!(keys.len(), 3);
        for key in keys {
            let (at, pk) = decode_expiry_key(&key).unwrap();
            let mut v1 = u32::from(key[0]).to_be_bytes().to_vec();
            v1.extend_from_slice(&((at as u64) ^ (1 << 63)).to_be_bytes());
            v1.extend_from_slice(pk);
            old.insert(v1, b"").unwrap();
            if !pk.starts_with(keep) {
                new.remove(key.clone()).unwrap();
            }
        }
        meta.insert(FORMAT_KEY, b"1").unwrap();
        db.persist(fjall::PersistMode::SyncAll).unwrap();
    }

    #[test]
    fn a_format_1_directory_is_migrated_then_swept_as_before() {
        let dir = tempfile::tempdir().unwrap();
        let clock = Arc::new(ManualClock::new(1_000_000));
        let open = || {
            let options = EngineOptions {
                clock: clock.clone(),
                ..Default::default()
            };
            Engine::open(dir.path(), options).unwrap()
        };
        let engine = open();
        let def = TableDefinition::new("Tbl", "pk", ScalarAttributeType::S)
            .with_stream(StreamViewType::KeysOnly);
        engine.create_table(def).unwrap();
        engine
            .update_time_to_live("Tbl", TimeToLiveSpecification::enabled("ttl"))
            .unwrap();
        for (pk, ttl) in [("a", 1_010), ("b", 1_020), ("c", 5_000)] {
            engine.put_item("Tbl", item(pk, Some(ttl))).unwrap();
        }
        drop(engine);
        rewrite_as_format_1(dir.path(), b"a");

        let engine = open();
        let store = &engine.inner.store;
        let version = store.meta.get(FORMAT_KEY).unwrap();
        assert_eq!(version.as_deref(), Some(FORMAT_VERSION.as_bytes()));
        assert!(!store.db.keyspace_exists(EXPIRY_V1));
        assert_eq!(store.expiry.iter().count(), 3);
        clock.advance(Duration::from_secs(100));
        assert_eq!(engine.expired_backlog("Tbl").unwrap(), 2);
        assert_eq!(engine.sweep_now().unwrap().deleted, 2);
        assert!(engine.get_item("Tbl", &item("a", None)).unwrap().is_none());
        assert!(engine.get_item("Tbl", &item("c", None)).unwrap().is_some());
        clock.advance(Duration::from_secs(5_000));
        assert_eq!(engine.sweep_now().unwrap().deleted, 1);
        drop(engine);

        // Opened again, nothing is left to migrate.
        let engine = open();
        assert_eq!(engine.inner.store.expiry.iter().count(), 0);
    }

    #[test]
    fn a_directory_of_an_unknown_version_is_refused_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        drop(Engine::open(dir.path(), EngineOptions::default()).unwrap());
        {
            let db = fjall::Database::builder(dir.path()).open().unwrap();
            let meta = db.keyspace(META, KeyspaceCreateOptions::default).unwrap();
            meta.insert(FORMAT_KEY, b"3").unwrap();
            db.persist(fjall::PersistMode::SyncAll).unwrap();
        }
        let err = Engine::open(dir.path(), EngineOptions::default()).unwrap_err();
        assert!(matches!(
            &err,
            crate::OpenError::UnsupportedFormat { found, expected, .. }
                if found == "3" && expected == FORMAT_VERSION
        ));
        assert!(err.to_string().contains("format version 3"), "{err}");
    }

    #[test]
    fn a_short_format_1_key_is_corrupt_naming_the_keyspace() {
        let err = decode_v1(b"\0\0\0\x01abc").unwrap_err();
        assert!(err.to_string().contains(EXPIRY_V1), "{err}");
    }
}
