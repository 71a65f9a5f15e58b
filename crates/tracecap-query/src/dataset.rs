//! A table's Parquet files in the datasets, read as one table.
//!
//! The export writes its Arrow schema into every file (the `ARROW:schema` key), where text is
//! dictionary-encoded. A reader that follows it decodes each text column as a dictionary, which
//! the engine would then cast row by row to the views its tables hold ([`crate::schema`]): about
//! a third of the time of a `GROUP BY name` over a dataset. When the table's text columns are
//! views, the files are read with [`DatasetParquet`] instead, whose reader hands DataFusion each
//! file's metadata without that key: text columns are then text, and DataFusion's Parquet
//! reader decodes them straight into views.
//!
//! A file that cannot be read (cut short, overwritten, not Parquet) fails the query with a
//! [`DamagedFile`] error that names it, whether the engine met it gathering statistics, reading
//! its bytes or decoding them ([`Opened`]).

use std::collections::HashSet;
use std::ops::Range;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use bytes::Bytes;
use datafusion::arrow::datatypes::{DataType, SchemaRef};
use datafusion::arrow::error::ArrowError;
use datafusion::catalog::Session;
use datafusion::common::{GetExt, Statistics};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::physical_plan::parquet::CachedParquetFileReaderFactory;
use datafusion::datasource::physical_plan::{
    FileScanConfig, FileScanConfigBuilder, FileSource, ParquetFileReaderFactory, ParquetSource,
};
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::error::{DataFusionError, Result};
use datafusion::object_store::path::Path as ObjectPath;
use datafusion::object_store::{ObjectMeta, ObjectStore};
use datafusion::parquet::arrow::arrow_reader::ArrowReaderOptions;
use datafusion::parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use datafusion::parquet::arrow::async_reader::AsyncFileReader;
use datafusion::parquet::arrow::ARROW_SCHEMA_META_KEY;
use datafusion::parquet::errors::{ParquetError, Result as ParquetResult};
use datafusion::parquet::file::metadata::{FileMetaData, ParquetMetaData, ParquetMetaDataBuilder};
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::ExecutionPlan;
use futures::future::BoxFuture;
use futures::FutureExt;
use tracecap_arrow::dataset::committed_files;
use tracecap_arrow::Table;

/// The Parquet files of `table` in every dataset, as one table of `schema`: each dataset's
/// [`committed_files`], so that the rows of a part whose writer was killed before its `captures`
/// file was in place are left out.
pub(crate) fn table(
    table: Table,
    schema: &SchemaRef,
    datasets: &[std::path::PathBuf],
    opened: &Arc<Opened>,
) -> Result<Option<Arc<ListingTable>>> {
    let mut urls = Vec::new();
    for dir in datasets {
        let files = committed_files(dir, table).map_err(|e| DataFusionError::External(e.into()))?;
        for file in files {
            let file = std::path::absolute(&file)?;
            urls.push(ListingTableUrl::parse(file.display().to_string())?);
        }
    }
    if urls.is_empty() {
        return Ok(None);
    }
    let views = schema
        .fields()
        .iter()
        .any(|f| f.data_type() == &DataType::Utf8View);
    let format: Arc<dyn FileFormat> = Arc::new(DatasetParquet {
        parquet: ParquetFormat::default(),
        text_as_text: views,
        opened: Arc::clone(opened),
    });
    let options = ListingOptions::new(format).with_file_extension(".parquet");
    let config = ListingTableConfig::new_with_multi_paths(urls)
        .with_listing_options(options)
        .with_schema(Arc::clone(schema));
    Ok(Some(Arc::new(ListingTable::try_new(config)?)))
}

/// A Parquet file of a dataset that could not be read: its path and the reader's message.
#[derive(Debug)]
pub struct DamagedFile {
    /// The file, as the engine opened it.
    pub path: String,
    /// What the Parquet reader said.
    pub message: String,
}

impl DamagedFile {
    fn new(location: &ObjectPath, error: &dyn std::error::Error) -> Self {
        let message = error.to_string();
        // The reader's errors start with what they are, which the path already says.
        let message = message
            .trim_start_matches("Parquet error: ")
            .trim_start_matches("Parquet error: ");
        DamagedFile {
            path: format!("/{location}"),
            message: message.to_string(),
        }
    }

    /// The first `DamagedFile` among `error` and its sources (the engine wraps it in its own
    /// errors).
    pub fn find<'e>(error: &'e (dyn std::error::Error + 'static)) -> Option<&'e DamagedFile> {
        let mut at = Some(error);
        while let Some(e) = at {
            if let Some(d) = e.downcast_ref::<DamagedFile>() {
                return Some(d);
            }
            at = e.source();
        }
        None
    }
}

/// The dataset files the engine opened, the most recent last: where the file behind a failed
/// read is looked for when the error does not name it (the Parquet reader's decoding errors,
/// raised after the bytes were fetched, do not).
#[derive(Debug, Default)]
pub(crate) struct Opened(Mutex<Vec<ObjectPath>>);

impl Opened {
    fn note(&self, location: &ObjectPath) {
        let mut opened = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if opened.last() != Some(location) {
            opened.push(location.clone());
        }
    }

    /// `error` naming its file: as it is when it does, or when it is no Parquet error; else the
    /// first of the opened files, the most recent first, that cannot be read whole (the error
    /// as it is when they all can).
    pub(crate) fn name_file(&self, error: DataFusionError) -> DataFusionError {
        if DamagedFile::find(&error).is_some() || !from_parquet(&error) {
            return error;
        }
        let opened = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mut checked = HashSet::new();
        for location in opened.iter().rev() {
            if !checked.insert(location) {
                continue;
            }
            if let Err(e) = read_whole(location) {
                return DataFusionError::External(Box::new(DamagedFile::new(location, &*e)));
            }
        }
        error
    }
}

/// Whether `error` or one of its sources is the Parquet reader's.
fn from_parquet(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut at = Some(error);
    while let Some(e) = at {
        let parquet = e.is::<ParquetError>()
            || matches!(
                e.downcast_ref::<ArrowError>(),
                Some(ArrowError::ParquetError(_))
            )
            || matches!(
                e.downcast_ref::<DataFusionError>(),
                Some(DataFusionError::ParquetError(_))
            );
        if parquet {
            return true;
        }
        at = e.source();
    }
    false
}

/// Reads every row of the file at `location`, keeping none.
fn read_whole(location: &ObjectPath) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let file = std::fs::File::open(format!("/{location}"))?;
    for batch in ParquetRecordBatchReaderBuilder::try_new(file)?.build()? {
        batch?;
    }
    Ok(())
}

impl std::fmt::Display for DamagedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "damaged Parquet file {}: {}", self.path, self.message)
    }
}

impl std::error::Error for DamagedFile {}

/// Parquet whose errors name the file; with `text_as_text`, each file is read as if it embedded
/// no Arrow schema (see the module's docs). Everything else is [`ParquetFormat`]'s.
#[derive(Debug)]
pub(crate) struct DatasetParquet {
    parquet: ParquetFormat,
    text_as_text: bool,
    opened: Arc<Opened>,
}

#[async_trait]
impl FileFormat for DatasetParquet {
    fn get_ext(&self) -> String {
        self.parquet.get_ext()
    }

    fn get_ext_with_compression(&self, compression: &FileCompressionType) -> Result<String> {
        self.parquet.get_ext_with_compression(compression)
    }

    fn compression_type(&self) -> Option<FileCompressionType> {
        self.parquet.compression_type()
    }

    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        self.parquet.infer_schema(state, store, objects).await
    }

    async fn infer_stats(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        self.opened.note(&object.location);
        self.parquet
            .infer_stats(state, store, table_schema, object)
            .await
            .map_err(|e| {
                DataFusionError::External(Box::new(DamagedFile::new(&object.location, &e)))
            })
    }

    async fn create_physical_plan(
        &self,
        state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(source) = conf.file_source().downcast_ref::<ParquetSource>() else {
            return self.parquet.create_physical_plan(state, conf).await;
        };
        let store = state.runtime_env().object_store(&conf.object_store_url)?;
        let cache = state.runtime_env().cache_manager.get_file_metadata_cache();
        let files = Arc::new(DatasetFiles {
            files: CachedParquetFileReaderFactory::new(store, cache),
            text_as_text: self.text_as_text,
            opened: Arc::clone(&self.opened),
        });
        let source = source
            .clone()
            .with_table_parquet_options(self.parquet.options().clone())
            .with_parquet_file_reader_factory(files);
        let conf = FileScanConfigBuilder::from(conf)
            .with_source(Arc::new(source))
            .build();
        Ok(DataSourceExec::from_data_source(conf))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        self.parquet.file_source(table_schema)
    }
}

impl GetExt for DatasetParquet {
    fn get_ext(&self) -> String {
        self.parquet.get_ext()
    }
}

/// Opens files as DataFusion's cached reader does; their errors name the file, and with
/// `text_as_text` their metadata comes without the embedded Arrow schema.
#[derive(Debug)]
struct DatasetFiles {
    files: CachedParquetFileReaderFactory,
    text_as_text: bool,
    opened: Arc<Opened>,
}

impl ParquetFileReaderFactory for DatasetFiles {
    fn create_reader(
        &self,
        partition_index: usize,
        file: PartitionedFile,
        metadata_size_hint: Option<usize>,
        metrics: &ExecutionPlanMetricsSet,
    ) -> Result<Box<dyn AsyncFileReader + Send>> {
        let location = file.object_meta.location.clone();
        self.opened.note(&location);
        let reader =
            self.files
                .create_reader(partition_index, file, metadata_size_hint, metrics)?;
        Ok(Box::new(DatasetFile {
            reader,
            location,
            text_as_text: self.text_as_text,
        }))
    }
}

struct DatasetFile {
    reader: Box<dyn AsyncFileReader + Send>,
    location: ObjectPath,
    text_as_text: bool,
}

impl DatasetFile {
    fn named(&self, e: ParquetError) -> ParquetError {
        ParquetError::External(Box::new(DamagedFile::new(&self.location, &e)))
    }
}

impl AsyncFileReader for DatasetFile {
    fn get_bytes(&mut self, range: Range<u64>) -> BoxFuture<'_, ParquetResult<Bytes>> {
        async move {
            let got = self.reader.get_bytes(range).await;
            got.map_err(|e| self.named(e))
        }
        .boxed()
    }

    fn get_byte_ranges(
        &mut self,
        ranges: Vec<Range<u64>>,
    ) -> BoxFuture<'_, ParquetResult<Vec<Bytes>>> {
        async move {
            let got = self.reader.get_byte_ranges(ranges).await;
            got.map_err(|e| self.named(e))
        }
        .boxed()
    }

    fn get_metadata<'a>(
        &'a mut self,
        options: Option<&'a ArrowReaderOptions>,
    ) -> BoxFuture<'a, ParquetResult<Arc<ParquetMetaData>>> {
        async move {
            let got = self.reader.get_metadata(options).await;
            match got {
                Ok(metadata) if self.text_as_text => Ok(without_arrow_schema(metadata)),
                Ok(metadata) => Ok(metadata),
                Err(e) => Err(self.named(e)),
            }
        }
        .boxed()
    }
}

/// `metadata` without the `ARROW:schema` key (the rest shared or cloned).
fn without_arrow_schema(metadata: Arc<ParquetMetaData>) -> Arc<ParquetMetaData> {
    let file = metadata.file_metadata();
    let Some(keys) = file.key_value_metadata() else {
        return metadata;
    };
    if !keys.iter().any(|k| k.key == ARROW_SCHEMA_META_KEY) {
        return metadata;
    }
    let kept = keys
        .iter()
        .filter(|k| k.key != ARROW_SCHEMA_META_KEY)
        .cloned()
        .collect();
    let file = FileMetaData::new(
        file.version(),
        file.num_rows(),
        file.created_by().map(str::to_owned),
        Some(kept),
        file.schema_descr_ptr(),
        file.column_orders().cloned(),
    );
    Arc::new(
        ParquetMetaDataBuilder::new(file)
            .set_row_groups(metadata.row_groups().to_vec())
            .set_column_index(metadata.column_index().cloned())
            .set_offset_index(metadata.offset_index().cloned())
            .build(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{ArrayRef, DictionaryArray, Int64Array};
    use datafusion::arrow::datatypes::{Field, Int32Type, Schema};
    use datafusion::arrow::record_batch::RecordBatch;
    use datafusion::parquet::arrow::arrow_reader::ArrowReaderMetadata;
    use datafusion::parquet::arrow::ArrowWriter;
    use datafusion::parquet::file::metadata::ParquetMetaDataReader;

    /// The types a reader would decode a file into, given its metadata.
    fn read_as(metadata: Arc<ParquetMetaData>) -> Vec<DataType> {
        let reader = ArrowReaderMetadata::try_new(metadata, ArrowReaderOptions::new()).unwrap();
        let types = reader.schema().fields().iter();
        types.map(|f| f.data_type().clone()).collect()
    }

    #[test]
    fn without_the_arrow_schema_text_is_read_as_text_and_the_rest_is_unchanged() {
        let dictionary = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
        let schema = Arc::new(Schema::new(vec![
            Field::new("name", dictionary.clone(), false),
            Field::new("dur", DataType::Int64, true),
        ]));
        let names: DictionaryArray<Int32Type> = ["a", "b", "a"].into_iter().collect();
        let durs = Int64Array::from(vec![Some(1), None, Some(3)]);
        let columns: Vec<ArrayRef> = vec![Arc::new(names), Arc::new(durs)];
        let batch = RecordBatch::try_new(Arc::clone(&schema), columns).unwrap();
        let mut file = Vec::new();
        let mut writer = ArrowWriter::try_new(&mut file, schema, None).unwrap();
        writer.write(&batch).unwrap();
        writer.close().unwrap();
        let metadata = ParquetMetaDataReader::new()
            .parse_and_finish(&Bytes::from(file))
            .unwrap();
        let metadata = Arc::new(metadata);

        assert_eq!(
            read_as(Arc::clone(&metadata)),
            [dictionary, DataType::Int64]
        );
        let plain = without_arrow_schema(Arc::clone(&metadata));
        assert_eq!(
            read_as(Arc::clone(&plain)),
            [DataType::Utf8, DataType::Int64]
        );
        assert_eq!(plain.file_metadata().num_rows(), 3);
        assert_eq!(plain.row_groups().len(), metadata.row_groups().len());
        // Without the key, the metadata is handed on as it is.
        assert!(Arc::ptr_eq(
            &without_arrow_schema(Arc::clone(&plain)),
            &plain
        ));
    }
}
