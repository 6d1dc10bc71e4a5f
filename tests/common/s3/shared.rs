//! Servers shared by the tests in turn: a test leases one to itself
//! ([`Server::shared`]) and its end gives it back emptied, so that a run
//! of the suite starts a few servers, not one a test.

use std::ops::Deref;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use super::{Server, BUCKET};

/// Servers shared between tests: the idle ones, and how many there are
/// in all (idle or lent) of each kind (their extra `weed mini` arguments).
struct Pool {
    idle: Vec<Server>,
    counts: Vec<(Vec<String>, usize)>,
}

static POOL: Mutex<Pool> = Mutex::new(Pool {
    idle: Vec::new(),
    counts: Vec::new(),
});
/// Told when a server is given back or stopped.
static RETURNED: Condvar = Condvar::new();

/// Servers of a kind at most, whatever the tests running at once: a
/// server and the tools against it keep two cores busy, a third overlaps
/// their waits.
const SHARED_AT_MOST: usize = 3;

fn pool() -> MutexGuard<'static, Pool> {
    POOL.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Pool {
    /// How many servers started with `extra` there are.
    fn count(&mut self, extra: &[String]) -> &mut usize {
        let at = self.counts.iter().position(|(e, _)| e == extra);
        let at = at.unwrap_or_else(|| {
            self.counts.push((extra.to_vec(), 0));
            self.counts.len() - 1
        });
        &mut self.counts[at].1
    }
}

/// A server a test has to itself until it ends (it derefs to the
/// [`Server`]); then it goes back to the pool emptied (bucket [`BUCKET`]
/// alone, holding nothing), or, when the test failed or it cannot be
/// emptied, is stopped: no test starts on what another left. A test
/// takes one lease at most (a second would wait for itself).
pub struct Lease(Option<Server>);

impl Server {
    /// An idle server started with `extra`, or a new one when fewer than
    /// [`SHARED_AT_MOST`] of its kind run; else waits for one to come back.
    pub fn shared(extra: &[String]) -> Lease {
        let mut pool = pool();
        loop {
            if let Some(i) = pool.idle.iter().position(|s| s.extra == extra) {
                return Lease(Some(pool.idle.swap_remove(i)));
            }
            if *pool.count(extra) < SHARED_AT_MOST {
                *pool.count(extra) += 1;
                drop(pool);
                // A start that fails gives its place back.
                let counted = Counted(extra.to_vec());
                let server = Server::start(extra);
                std::mem::forget(counted);
                return Lease(Some(server));
            }
            pool = RETURNED.wait(pool).unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Removes every bucket but [`BUCKET`] and everything in them all;
    /// whether the server is as a test expects it.
    fn empty_out(&self) -> bool {
        let client = self.client();
        let emptied = || -> std::io::Result<bool> {
            for bucket in client.list_buckets()? {
                for (key, id) in client.list_uploads(&bucket, "")? {
                    client.abort_upload(&bucket, &key, &id)?;
                }
                let (objects, _) = client.list(&bucket, "", None, None)?;
                let keys: Vec<String> = objects.into_iter().map(|o| o.key).collect();
                client.delete_many(&bucket, &keys)?;
                if bucket != BUCKET {
                    client.delete_bucket(&bucket)?;
                }
            }
            let (objects, _) = client.list(BUCKET, "", None, None)?;
            let uploads = client.list_uploads(BUCKET, "")?;
            Ok(client.list_buckets()? == [BUCKET] && objects.is_empty() && uploads.is_empty())
        };
        emptied().unwrap_or(false)
    }
}

/// A place in the pool, of a server of the kind it holds.
struct Counted(Vec<String>);

impl Drop for Counted {
    fn drop(&mut self) {
        *pool().count(&self.0) -= 1;
        RETURNED.notify_all();
    }
}

impl Lease {
    /// The server as the test's own, never given back (a test that stops
    /// it).
    pub fn into_owned(mut self) -> Server {
        let server = self.0.take().expect("a lease holds its server");
        drop(Counted(server.extra.clone()));
        server
    }
}

impl Deref for Lease {
    type Target = Server;

    fn deref(&self) -> &Server {
        self.0.as_ref().expect("a lease holds its server")
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        let Some(server) = self.0.take() else {
            return;
        };
        if !std::thread::panicking() && server.empty_out() {
            pool().idle.push(server);
            RETURNED.notify_all();
        } else {
            let place = Counted(server.extra.clone());
            drop(server);
            drop(place);
        }
    }
}
