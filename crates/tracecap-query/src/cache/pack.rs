//! A pack: one Parquet file holding the rows of a table for many captures, each capture's rows
//! in row groups of their own. A partition of a scan writes one pack per set of columns it
//! keeps, under a temporary name, and renames it into place when its run ends; the links
//! written then point into it. Many captures in one file is what makes a cached scan cheap:
//! one footer read per pack, not one per capture.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use bytes::Bytes;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::arrow::error::ArrowError;
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::parquet::arrow::arrow_reader::{ArrowReaderMetadata, ArrowReaderOptions};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::parquet::basic::Compression;
use datafusion::parquet::errors::ParquetError;
use datafusion::parquet::file::metadata::{ColumnChunkMetaData, KeyValue, ParquetMetaData};
use datafusion::parquet::file::properties::WriterProperties;
use datafusion::parquet::file::reader::{ChunkReader, Length};
use tracecap::output::Output;

/// The Parquet key under which a pack lists its columns (indices in the table's schema).
const COLUMNS_KEY: &str = "tracecap.columns";

/// A pack opened for reading: its file, metadata and columns. Shared by the partitions of a
/// process.
pub(crate) struct OpenPack {
    pub(crate) file: PackFile,
    pub(crate) metadata: ArrowReaderMetadata,
    /// The columns it holds (indices in the table's schema), ascending.
    pub(crate) columns: Vec<usize>,
}

impl OpenPack {
    /// Opens the pack at `path`: `Err(None)` when it is not there (evicted), `Err(Some(why))`
    /// when it cannot be read.
    pub(crate) fn open(path: &Path) -> Result<OpenPack, Option<String>> {
        let file = match File::open(path) {
            Ok(f) => PackFile::new(f),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(None),
            Err(e) => return Err(Some(e.to_string())),
        };
        let metadata = ArrowReaderMetadata::load(&file, ArrowReaderOptions::new())
            .map_err(|e| Some(e.to_string()))?;
        let kv = metadata.metadata().file_metadata().key_value_metadata();
        let columns = stored_columns(kv).map_err(Some)?;
        // Used now: the last to be evicted.
        if let Ok(f) = File::options().append(true).open(path) {
            let _ = f.set_modified(SystemTime::now());
        }
        Ok(OpenPack {
            file,
            metadata,
            columns,
        })
    }

    /// Row groups in the pack.
    pub(crate) fn row_groups(&self) -> usize {
        self.metadata.metadata().num_row_groups()
    }
}

/// A pack's file, read at offsets by the partitions at once (no shared file position).
#[derive(Clone)]
pub(crate) struct PackFile {
    file: Arc<File>,
    len: u64,
}

impl PackFile {
    fn new(file: File) -> PackFile {
        let len = file.metadata().map_or(0, |m| m.len());
        PackFile {
            file: Arc::new(file),
            len,
        }
    }

    #[cfg(unix)]
    fn read_at(&self, start: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        std::os::unix::fs::FileExt::read_at(&*self.file, buf, start)
    }

    #[cfg(windows)]
    fn read_at(&self, start: u64, buf: &mut [u8]) -> std::io::Result<usize> {
        std::os::windows::fs::FileExt::seek_read(&*self.file, buf, start)
    }

    #[cfg(not(any(unix, windows)))]
    fn read_at(&self, _start: u64, _buf: &mut [u8]) -> std::io::Result<usize> {
        Err(std::io::ErrorKind::Unsupported.into())
    }
}

impl Length for PackFile {
    fn len(&self) -> u64 {
        self.len
    }
}

/// How much a pack's sequential reader reads at once: the reader of a column chunk asks for
/// page headers a few bytes at a time.
const READ_AHEAD: usize = 4 << 10;

impl ChunkReader for PackFile {
    type T = BufReader<PackRead>;

    fn get_read(&self, start: u64) -> Result<Self::T, ParquetError> {
        let read = PackRead {
            file: self.clone(),
            at: start,
        };
        Ok(BufReader::with_capacity(READ_AHEAD, read))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes, ParquetError> {
        let end = start.checked_add(length as u64).filter(|&e| e <= self.len);
        if end.is_none() {
            return Err(ParquetError::EOF(format!(
                "{length} bytes at {start} run past the pack's end ({})",
                self.len
            )));
        }
        let mut buf = Vec::with_capacity(length);
        let read = PackRead {
            file: self.clone(),
            at: start,
        };
        read.take(length as u64).read_to_end(&mut buf)?;
        if buf.len() < length {
            return Err(ParquetError::EOF(
                "the pack shrank while it was read".into(),
            ));
        }
        Ok(Bytes::from(buf))
    }
}

/// Most bytes [`PackFile::prefetch`] reads at once.
const PREFETCH_MAX: u64 = 64 << 20;

impl PackFile {
    /// The pack, with the bytes of the `roots` columns (indices of the pack's columns) of the
    /// given row groups read ahead in one call: a capture's rows are a few small chunks, which
    /// the Parquet reader would otherwise fetch page header by page header. Chunks whose span
    /// is too large, or whose metadata does not add up, are read as they are asked for.
    pub(crate) fn prefetch(
        &self,
        metadata: &ParquetMetaData,
        row_groups: &[usize],
        roots: &[usize],
    ) -> Prefetched {
        // The leaf columns of the wanted root columns (a nested column has several).
        let schema = metadata.file_metadata().schema_descr();
        let leaves: Vec<usize> = (0..schema.num_columns())
            .filter(|&leaf| roots.contains(&schema.get_column_root_idx(leaf)))
            .collect();
        let chunks: Option<Vec<(u64, u64)>> = row_groups
            .iter()
            .filter_map(|&g| metadata.row_groups().get(g))
            .flat_map(|g| leaves.iter().filter_map(|&c| g.columns().get(c)))
            .map(chunk_range)
            .collect();
        let span = chunks
            .and_then(|c| {
                let start = c.iter().map(|&(start, _)| start).min()?;
                let end = c.iter().map(|&(_, end)| end).max()?;
                Some((start, end))
            })
            .filter(|&(start, end)| end - start <= PREFETCH_MAX && end <= self.len);
        let ahead = span.and_then(|(start, end)| {
            let bytes = self
                .get_bytes(start, usize::try_from(end - start).ok()?)
                .ok()?;
            Some((start, bytes))
        });
        Prefetched {
            file: self.clone(),
            ahead,
        }
    }
}

/// Where a column chunk lies in the file: `None` when its metadata is negative or overflows.
fn chunk_range(chunk: &ColumnChunkMetaData) -> Option<(u64, u64)> {
    let start = chunk
        .dictionary_page_offset()
        .unwrap_or(chunk.data_page_offset());
    let start = u64::try_from(start).ok()?;
    let len = u64::try_from(chunk.compressed_size()).ok()?;
    Some((start, start.checked_add(len)?))
}

/// A pack with some of its bytes read ahead ([`PackFile::prefetch`]): reads that fall in them
/// cost no system call.
pub(crate) struct Prefetched {
    file: PackFile,
    /// The bytes read ahead and where they start in the file.
    ahead: Option<(u64, Bytes)>,
}

impl Prefetched {
    /// The bytes read ahead from `start` on, when `start` lies in them.
    fn ahead_from(&self, start: u64) -> Option<Bytes> {
        let (at, bytes) = self.ahead.as_ref()?;
        let skip = usize::try_from(start.checked_sub(*at)?).ok()?;
        (skip < bytes.len()).then(|| bytes.slice(skip..))
    }
}

impl Length for Prefetched {
    fn len(&self) -> u64 {
        self.file.len
    }
}

impl ChunkReader for Prefetched {
    type T = std::io::Chain<bytes::buf::Reader<Bytes>, BufReader<PackRead>>;

    fn get_read(&self, start: u64) -> Result<Self::T, ParquetError> {
        use bytes::Buf;
        let ahead = self.ahead_from(start).unwrap_or_default();
        // Past the bytes read ahead, the file goes on.
        let rest = start + ahead.len() as u64;
        Ok(ahead.reader().chain(self.file.get_read(rest)?))
    }

    fn get_bytes(&self, start: u64, length: usize) -> Result<Bytes, ParquetError> {
        match self.ahead_from(start) {
            Some(ahead) if length <= ahead.len() => Ok(ahead.slice(..length)),
            _ => self.file.get_bytes(start, length),
        }
    }
}

/// A reader of a pack from an offset on.
pub(crate) struct PackRead {
    file: PackFile,
    at: u64,
}

impl Read for PackRead {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.file.read_at(self.at, buf)?;
        self.at += n as u64;
        Ok(n)
    }
}

/// A pack being written, under a temporary name until [`PackWriter::finish`]
/// ([`tracecap::output::Output`]: removed if dropped before, or if the process is interrupted).
pub(crate) struct PackWriter {
    writer: ArrowWriter<Output>,
    /// Its name once in place.
    pub(crate) name: String,
    /// The columns it holds (indices in the table's schema), ascending.
    pub(crate) columns: Vec<usize>,
}

impl PackWriter {
    /// A new pack of `table` in `dir` holding `columns` in batches of `schema`.
    pub(crate) fn create(
        dir: &Path,
        table: &str,
        columns: &[usize],
        schema: &SchemaRef,
    ) -> std::io::Result<PackWriter> {
        let name = super::unique_name(table, "parquet");
        let out = Output::create(&dir.join(&name))?;
        let list: Vec<String> = columns.iter().map(usize::to_string).collect();
        let props = WriterProperties::builder()
            .set_compression(Compression::LZ4_RAW)
            .set_key_value_metadata(Some(vec![KeyValue::new(
                COLUMNS_KEY.to_string(),
                list.join(","),
            )]))
            .build();
        let writer = ArrowWriter::try_new(out, Arc::clone(schema), Some(props))
            .map_err(std::io::Error::other)?;
        Ok(PackWriter {
            writer,
            name,
            columns: columns.to_vec(),
        })
    }

    /// Row groups written so far: where the next capture's rows begin.
    pub(crate) fn row_groups(&self) -> usize {
        self.writer.flushed_row_groups().len()
    }

    /// Adds a batch of the pack's columns.
    pub(crate) fn write(&mut self, batch: &RecordBatch) -> Result<(), ArrowError> {
        self.writer
            .write(batch)
            .map_err(|e| ArrowError::ExternalError(Box::new(e)))
    }

    /// Ends the current capture's rows: they are row groups of their own.
    pub(crate) fn end_capture(&mut self) -> Result<(), ArrowError> {
        if self.writer.in_progress_rows() == 0 {
            return Ok(());
        }
        self.writer
            .flush()
            .map_err(|e| ArrowError::ExternalError(Box::new(e)))
    }

    /// Closes the file and renames it into place in `dir`: its bytes.
    pub(crate) fn finish(self, dir: &Path) -> std::io::Result<u64> {
        let out = self.writer.into_inner().map_err(std::io::Error::other)?;
        out.commit()?;
        std::fs::metadata(dir.join(&self.name)).map(|m| m.len())
    }
}

/// The columns a pack lists in its metadata.
fn stored_columns(metadata: Option<&Vec<KeyValue>>) -> Result<Vec<usize>, String> {
    let list = metadata
        .and_then(|kv| kv.iter().find(|kv| kv.key == COLUMNS_KEY))
        .and_then(|kv| kv.value.as_deref())
        .ok_or_else(|| "no list of columns".to_string())?;
    list.split(',')
        .filter(|s| !s.is_empty())
        .map(|s| {
            s.parse()
                .map_err(|_| format!("bad list of columns {list:?}"))
        })
        .collect()
}
