//! Moving bytes reliably: a transfer finishes even when the backend moves
//! fewer bytes than asked, unless the run forbids retrying.

use std::io::{self, IoSlice};

use super::{BatchResult, File, Piece};

/// What to do when a transfer moves fewer bytes than asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// Go on with the rest until all is done.
    Allowed,
    /// A short transfer is an error; the text says why (it ends the message).
    Forbidden(&'static str),
}

impl Retry {
    /// The policy of a task's transfers: `-x` forbids retrying, and so does
    /// collective I/O (every task must make the same calls).
    pub fn of(single_attempt: bool, collective: bool) -> Retry {
        if single_attempt {
            Retry::Forbidden("-x forbids retrying")
        } else if collective {
            Retry::Forbidden("collective transfers are not retried")
        } else {
            Retry::Allowed
        }
    }
}

/// Several transfers in order, as [`File::transfer_batch`] takes them
/// (piece `k` reads when bit `k` of `reads` is set): in one call when
/// the backend takes batches, else each with [`read_fully`] or
/// [`write_fully`].
pub fn transfer_pieces(
    file: &mut dyn File,
    write_buf: &[u8],
    read_buf: &mut [u8],
    pieces: &[Piece],
    reads: u64,
    retry: Retry,
) -> BatchResult {
    if let Some(done) = file.transfer_batch(write_buf, read_buf, pieces, reads) {
        return done;
    }
    for (k, p) in pieces.iter().enumerate() {
        let made = match reads >> k & 1 {
            1 => read_fully(file, &mut read_buf[p.bytes()], p.offset, retry),
            _ => write_fully(file, &write_buf[p.bytes()], p.offset, retry),
        };
        made.map_err(|e| (k, e))?;
    }
    Ok(())
}

/// `write_at` until all of `buf` is written (as `retry` allows). The first
/// attempt is inline: a complete transfer costs one call and one comparison.
#[inline(always)]
pub fn write_fully(file: &mut dyn File, buf: &[u8], offset: u64, retry: Retry) -> io::Result<()> {
    match file.write_at(buf, offset) {
        Ok(n) if n == buf.len() => Ok(()),
        first => finish_write(file, buf, offset, retry, first),
    }
}

/// `write_vectored_at` until all of `bufs` is written (as `retry`
/// allows): one call when the backend gathers them all.
pub fn write_vectored_fully(
    file: &mut dyn File,
    bufs: &mut [IoSlice<'_>],
    offset: u64,
    retry: Retry,
) -> io::Result<()> {
    let wanted: usize = bufs.iter().map(|b| b.len()).sum();
    if wanted == 0 {
        return Ok(());
    }
    let first = file.write_vectored_at(bufs, offset);
    if matches!(first, Ok(n) if n == wanted) {
        return Ok(());
    }
    let zero = |_| io::Error::new(io::ErrorKind::WriteZero, "write returned 0 bytes");
    let (mut rest, mut skipped) = (bufs, 0);
    finish("write", wanted, offset, retry, first, zero, |done| {
        IoSlice::advance_slices(&mut rest, done - skipped);
        skipped = done;
        file.write_vectored_at(rest, offset + done as u64)
    })
}

/// `read_at` until `buf` is full (as `retry` allows); end of file first is
/// an error naming how much was missing. The first attempt is inline.
#[inline(always)]
pub fn read_fully(
    file: &mut dyn File,
    buf: &mut [u8],
    offset: u64,
    retry: Retry,
) -> io::Result<()> {
    match file.read_at(buf, offset) {
        Ok(n) if n == buf.len() => Ok(()),
        first => finish_read(file, buf, offset, retry, first),
    }
}

/// The rest of [`write_fully`] after a first attempt that was not complete.
#[cold]
#[inline(never)]
fn finish_write(
    file: &mut dyn File,
    buf: &[u8],
    offset: u64,
    retry: Retry,
    first: io::Result<usize>,
) -> io::Result<()> {
    let zero = |_| io::Error::new(io::ErrorKind::WriteZero, "write returned 0 bytes");
    finish("write", buf.len(), offset, retry, first, zero, |done| {
        file.write_at(&buf[done..], offset + done as u64)
    })
}

/// The rest of [`read_fully`] after a first attempt that was not complete.
#[cold]
#[inline(never)]
fn finish_read(
    file: &mut dyn File,
    buf: &mut [u8],
    offset: u64,
    retry: Retry,
    first: io::Result<usize>,
) -> io::Result<()> {
    let wanted = buf.len();
    let zero = |done: usize| ended(offset + done as u64, wanted, offset);
    finish("read", wanted, offset, retry, first, zero, |done| {
        file.read_at(&mut buf[done..], offset + done as u64)
    })
}

/// Goes on with a transfer of `wanted` bytes whose first attempt returned
/// `first`: `again(done)` moves the rest from `done` on, and a call that
/// moves nothing is the error `zero(done)`.
fn finish(
    what: &str,
    wanted: usize,
    offset: u64,
    retry: Retry,
    first: io::Result<usize>,
    zero: impl Fn(usize) -> io::Error,
    mut again: impl FnMut(usize) -> io::Result<usize>,
) -> io::Result<()> {
    let mut done = 0;
    let mut outcome = first;
    loop {
        match outcome {
            Ok(0) => return Err(zero(done)),
            Ok(n) => done += n,
            // A signal came before any byte moved: try again, if allowed.
            Err(e) if e.kind() == io::ErrorKind::Interrupted && retry == Retry::Allowed => {}
            Err(e) => return Err(e),
        }
        if done >= wanted {
            return Ok(());
        }
        if let Retry::Forbidden(why) = retry {
            return Err(short(what, done, wanted, offset, why));
        }
        outcome = again(done);
    }
}

/// The error of a short transfer that was not retried.
pub(crate) fn short(what: &str, done: usize, wanted: usize, offset: u64, why: &str) -> io::Error {
    io::Error::other(format!(
        "short {what}: {done} of {wanted} bytes at offset {offset} ({why})"
    ))
}

/// The error of a read that met the end of the file at `end`.
pub(crate) fn ended(end: u64, wanted: usize, offset: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!(
            "short read: the file ends at {end} but {wanted} bytes were expected \
             at offset {offset}"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that moves at most `chunk` bytes per call and ends at `len`;
    /// its first `interrupted` calls fail with `EINTR`.
    struct Stub {
        chunk: usize,
        len: u64,
        interrupted: usize,
        calls: usize,
    }

    impl Stub {
        fn new(chunk: usize, len: u64) -> Stub {
            Stub {
                chunk,
                len,
                interrupted: 0,
                calls: 0,
            }
        }

        fn call(&mut self) -> io::Result<()> {
            self.calls += 1;
            if self.calls <= self.interrupted {
                return Err(io::ErrorKind::Interrupted.into());
            }
            Ok(())
        }
    }

    impl File for Stub {
        fn write_at(&mut self, buf: &[u8], _offset: u64) -> io::Result<usize> {
            self.call()?;
            Ok(buf.len().min(self.chunk))
        }
        fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            self.call()?;
            let left = self.len.saturating_sub(offset) as usize;
            Ok(buf.len().min(self.chunk).min(left))
        }
        fn sync(&mut self) -> io::Result<()> {
            Ok(())
        }
        fn close(self: Box<Self>) -> io::Result<()> {
            Ok(())
        }
    }

    const X: Retry = Retry::Forbidden("-x forbids retrying");

    #[test]
    fn complete_transfers_take_one_call() {
        let mut f = Stub::new(usize::MAX, u64::MAX);
        write_fully(&mut f, &[0; 10], 100, X).unwrap();
        read_fully(&mut f, &mut [0; 10], 100, X).unwrap();
        assert_eq!(f.calls, 2);
    }

    #[test]
    fn short_transfers_are_finished_when_retrying_is_allowed() {
        let mut f = Stub::new(3, u64::MAX);
        write_fully(&mut f, &[0; 10], 100, Retry::Allowed).unwrap();
        assert_eq!(f.calls, 4);
        let mut f = Stub::new(3, u64::MAX);
        read_fully(&mut f, &mut [0; 10], 100, Retry::Allowed).unwrap();
        assert_eq!(f.calls, 4);
        // The end of the file comes first: 3 + 2 bytes, then 0.
        let mut f = Stub::new(3, 105);
        let e = read_fully(&mut f, &mut [0; 10], 100, Retry::Allowed).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(
            e.to_string(),
            "short read: the file ends at 105 but 10 bytes were expected at offset 100"
        );
        assert_eq!(f.calls, 3);
        let mut f = Stub::new(0, u64::MAX);
        let e = write_fully(&mut f, &[0; 10], 100, Retry::Allowed).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WriteZero);
        assert_eq!(f.calls, 1);
    }

    #[test]
    fn x_does_not_retry() {
        let mut f = Stub::new(3, u64::MAX);
        let e = write_fully(&mut f, &[0; 10], 100, X).unwrap_err();
        assert_eq!(
            e.to_string(),
            "short write: 3 of 10 bytes at offset 100 (-x forbids retrying)"
        );
        assert_eq!(f.calls, 1);
        let mut f = Stub::new(3, u64::MAX);
        let e = read_fully(&mut f, &mut [0; 10], 100, X).unwrap_err();
        assert_eq!(
            e.to_string(),
            "short read: 3 of 10 bytes at offset 100 (-x forbids retrying)"
        );
        assert_eq!(f.calls, 1);
        // A first read at the end of the file is not tried again either.
        let mut f = Stub::new(3, 100);
        let e = read_fully(&mut f, &mut [0; 10], 100, X).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(f.calls, 1);
    }

    #[test]
    fn interrupted_calls_are_retried_unless_forbidden() {
        let mut f = Stub::new(usize::MAX, u64::MAX);
        f.interrupted = 2;
        read_fully(&mut f, &mut [0; 10], 0, Retry::Allowed).unwrap();
        assert_eq!(f.calls, 3);
        let mut f = Stub::new(4, u64::MAX);
        f.interrupted = 1;
        write_fully(&mut f, &[0; 10], 0, Retry::Allowed).unwrap();
        assert_eq!(f.calls, 4);
        let mut f = Stub::new(usize::MAX, u64::MAX);
        f.interrupted = 1;
        let e = read_fully(&mut f, &mut [0; 10], 0, X).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::Interrupted);
        assert_eq!(f.calls, 1);
    }

    #[test]
    fn collective_io_is_not_retried_either() {
        assert_eq!(Retry::of(false, false), Retry::Allowed);
        assert_eq!(Retry::of(true, true), X);
        let mut f = Stub::new(3, u64::MAX);
        let e = write_fully(&mut f, &[0; 10], 0, Retry::of(false, true)).unwrap_err();
        assert!(e
            .to_string()
            .ends_with("(collective transfers are not retried)"));
        assert_eq!(f.calls, 1);
    }

    /// A file in memory that gathers at most `chunk` bytes a call.
    struct Memory {
        data: Vec<u8>,
        chunk: usize,
        calls: usize,
    }

    impl File for Memory {
        fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
            self.calls += 1;
            let (at, n) = (offset as usize, buf.len().min(self.chunk));
            self.data.resize(self.data.len().max(at + n), 0);
            self.data[at..at + n].copy_from_slice(&buf[..n]);
            Ok(n)
        }
        fn write_vectored_at(&mut self, bufs: &[IoSlice<'_>], offset: u64) -> io::Result<usize> {
            let joined: Vec<u8> = bufs.iter().flat_map(|b| b.iter().copied()).collect();
            self.write_at(&joined, offset)
        }
        fn read_at(&mut self, _buf: &mut [u8], _offset: u64) -> io::Result<usize> {
            Ok(0)
        }
        fn sync(&mut self) -> io::Result<()> {
            Ok(())
        }
        fn close(self: Box<Self>) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn gathered_writes_put_every_buffer_in_place() {
        let parts: [&[u8]; 4] = [b"abc", b"", b"defgh", b"ij"];
        let slices = || parts.map(IoSlice::new);
        let mut f = Memory {
            data: Vec::new(),
            chunk: usize::MAX,
            calls: 0,
        };
        write_vectored_fully(&mut f, &mut slices(), 5, X).unwrap();
        assert_eq!((&f.data[5..], f.calls), (&b"abcdefghij"[..], 1));
        // Short writes go on from the byte they stopped at.
        f.chunk = 4;
        write_vectored_fully(&mut f, &mut slices(), 20, Retry::Allowed).unwrap();
        assert_eq!((&f.data[20..], f.calls), (&b"abcdefghij"[..], 4));
        let e = write_vectored_fully(&mut f, &mut slices(), 0, X).unwrap_err();
        assert_eq!(
            e.to_string(),
            "short write: 4 of 10 bytes at offset 0 (-x forbids retrying)"
        );
        // A backend that cannot gather writes them one by one, in one
        // call of write_vectored_at.
        let mut f = Stub::new(usize::MAX, u64::MAX);
        write_vectored_fully(&mut f, &mut slices(), 0, X).unwrap();
        assert_eq!(f.calls, 3);
        let mut f = Stub::new(4, u64::MAX);
        let e = write_vectored_fully(&mut f, &mut slices(), 0, X).unwrap_err();
        assert!(
            e.to_string().starts_with("short write: 7 of 10 bytes"),
            "{e}"
        );
        write_vectored_fully(&mut f, &mut [], 0, X).unwrap();
        assert_eq!(f.calls, 2);
    }

    #[test]
    fn pieces_are_made_one_by_one_and_a_failure_names_its_piece() {
        let piece = |offset, len, at| Piece { offset, len, at };
        let pieces = [piece(0, 4, 0), piece(40, 6, 4), piece(96, 2, 0)];
        let mut f = Stub::new(usize::MAX, u64::MAX);
        transfer_pieces(&mut f, &[0; 12], &mut [0; 12], &pieces, 0b101, X).unwrap();
        assert_eq!(f.calls, 3);
        // The file ends inside the second piece, a read: the first is complete.
        let mut f = Stub::new(usize::MAX, 44);
        let (k, e) = transfer_pieces(
            &mut f,
            &[0; 12],
            &mut [0; 12],
            &pieces,
            0b010,
            Retry::Allowed,
        )
        .unwrap_err();
        assert_eq!((k, e.kind()), (1, io::ErrorKind::UnexpectedEof));
    }
}
