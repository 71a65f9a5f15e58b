//! How long the zero gap between segments can be: a limit of the writer's, apart from the walk
//! that holds files to it so that the errors can name it.

/// The longest run of zero bytes the reader accepts between segments: 1 MiB less 8 bytes.
///
/// The writer's zero gap is as long as the part of its working buffer that a mid-run flush wrote.
/// Every mid-run flush writes exactly 1,048,576 bytes, and at least the 8-byte tag and length of
/// its closing filler segment are among them, so the flushed records take at most 1,048,568
/// bytes. A longer run of zero bytes is not the writer's gap: it is reported as
/// [`ErrorKind::LongZeroRun`](crate::ErrorKind::LongZeroRun) at the offset of its first byte,
/// and the walk looks at no more than this many bytes (plus one word) of it.
pub const MAX_GAP_LEN: u64 = (1 << 20) - 8;
