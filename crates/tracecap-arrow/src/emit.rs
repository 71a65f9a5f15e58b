//! Where batches go: a [`BatchSink`], and the walk's handle on it that adds the `capture` column,
//! drops the tables nobody asked for and keeps only the columns asked for.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{ArrowError, SchemaRef};

use crate::columns::capture_column;
use crate::table::{Table, Tables};

/// Receives the batches of a walk, table by table, as they fill.
pub trait BatchSink {
    /// A batch of `table`: its schema is [`Table::schema`], or the columns of it that
    /// [`crate::Options::columns`] names.
    fn batch(&mut self, table: Table, batch: RecordBatch) -> Result<(), ArrowError>;
}

impl<F: FnMut(Table, RecordBatch) -> Result<(), ArrowError>> BatchSink for F {
    fn batch(&mut self, table: Table, batch: RecordBatch) -> Result<(), ArrowError> {
        self(table, batch)
    }
}

/// Each table's schema, as the walk's caller gives it (see [`Emit::new`]).
pub(crate) type Schemas = fn(Table) -> SchemaRef;

/// A walk's output: the capture's id, the batch size, the wanted tables and columns, the tables'
/// schemas, and the sink.
pub(crate) struct Emit<'a> {
    capture: &'a str,
    batch_rows: usize,
    tables: Tables,
    schemas: Schemas,
    /// The wanted columns of every table, by index in its schema (`None`: all).
    columns: Option<&'a [usize]>,
    /// The schema of each table projected to `columns`, made at its first batch.
    projected: [Option<SchemaRef>; Table::ALL.len()],
    sink: &'a mut dyn BatchSink,
}

impl<'a> Emit<'a> {
    /// The output of the walk of `capture` into `sink`, in batches of `batch_rows`, of the
    /// `tables` and `columns` wanted; `schemas` gives each table's full schema (the builders
    /// that hand over the columns know them; this only joins and projects them).
    pub(crate) fn new(
        capture: &'a str,
        batch_rows: usize,
        (tables, columns, schemas): (Tables, Option<&'a [usize]>, Schemas),
        sink: &'a mut dyn BatchSink,
    ) -> Self {
        Emit {
            capture,
            batch_rows: batch_rows.max(1),
            tables,
            schemas,
            columns,
            projected: Default::default(),
            sink,
        }
    }

    /// Rows per batch: a table builder hands its rows over once it holds this many.
    pub(crate) fn batch_rows(&self) -> usize {
        self.batch_rows
    }

    /// Whether `table` is wanted (a builder of an unwanted table need not gather anything).
    pub(crate) fn wants(&self, table: Table) -> bool {
        self.tables.contains(table)
    }

    /// Whether column `column` (its index in the schema) of a wanted table is wanted: a builder
    /// need not fill a column that is not.
    pub(crate) fn wants_column(&self, column: usize) -> bool {
        self.columns.is_none_or(|c| c.contains(&column))
    }

    /// Hands over a batch of `table` made of `columns` (every column of its schema but the
    /// first, `capture`, which is added here). Nothing is sent for zero rows or an unwanted table.
    pub(crate) fn emit(&mut self, table: Table, columns: Vec<ArrayRef>) -> Result<(), ArrowError> {
        let rows = columns.first().map_or(0, |c| c.len());
        self.emit_rows(table, (rows, columns))
    }

    /// [`Emit::emit`] of a batch of `rows` rows, whose unwanted columns (see
    /// [`Emit::wants_column`]) may be placeholders of any length: they are left out.
    pub(crate) fn emit_rows(
        &mut self,
        table: Table,
        (rows, columns): (usize, Vec<ArrayRef>),
    ) -> Result<(), ArrowError> {
        if rows == 0 || !self.wants(table) {
            return Ok(());
        }
        let Some(wanted) = self.columns else {
            let mut all = Vec::with_capacity(columns.len() + 1);
            all.push(capture_column(self.capture, rows));
            all.extend(columns);
            let batch = RecordBatch::try_new((self.schemas)(table), all)?;
            return self.sink.batch(table, batch);
        };
        let schema = self.projected(table, wanted)?;
        let mut chosen = Vec::with_capacity(wanted.len());
        for &i in wanted {
            chosen.push(match i.checked_sub(1) {
                None => capture_column(self.capture, rows),
                Some(c) => columns.get(c).cloned().ok_or_else(|| no_column(table, i))?,
            });
        }
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        let batch = RecordBatch::try_new_with_options(schema, chosen, &options)?;
        self.sink.batch(table, batch)
    }

    /// The schema of `table` projected to the columns `wanted`.
    fn projected(&mut self, table: Table, wanted: &[usize]) -> Result<SchemaRef, ArrowError> {
        let slot = self.projected.get_mut(table as usize);
        if let Some(Some(schema)) = slot.as_deref() {
            return Ok(Arc::clone(schema));
        }
        let full = (self.schemas)(table);
        if let Some(&past) = wanted.iter().find(|&&i| i >= full.fields().len()) {
            return Err(no_column(table, past));
        }
        let schema = Arc::new(full.project(wanted)?);
        if let Some(slot) = slot {
            *slot = Some(Arc::clone(&schema));
        }
        Ok(schema)
    }
}

fn no_column(table: Table, column: usize) -> ArrowError {
    ArrowError::SchemaError(format!("{table} has no column {column}"))
}
