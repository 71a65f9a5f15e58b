//! Where batches go: a [`BatchSink`], and the walk's handle on it that adds the `capture` column
//! and drops the tables nobody asked for.

use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::ArrowError;

use crate::columns::capture_column;
use crate::table::{Table, Tables};

/// Receives the batches of a walk, table by table, as they fill.
pub trait BatchSink {
    /// A batch of `table` (its schema is [`Table::schema`]).
    fn batch(&mut self, table: Table, batch: RecordBatch) -> Result<(), ArrowError>;
}

impl<F: FnMut(Table, RecordBatch) -> Result<(), ArrowError>> BatchSink for F {
    fn batch(&mut self, table: Table, batch: RecordBatch) -> Result<(), ArrowError> {
        self(table, batch)
    }
}

/// A walk's output: the capture's id, the batch size, the wanted tables and the sink.
pub(crate) struct Emit<'a> {
    capture: &'a str,
    batch_rows: usize,
    tables: Tables,
    sink: &'a mut dyn BatchSink,
}

impl<'a> Emit<'a> {
    pub(crate) fn new(
        capture: &'a str,
        batch_rows: usize,
        tables: Tables,
        sink: &'a mut dyn BatchSink,
    ) -> Self {
        Emit {
            capture,
            batch_rows: batch_rows.max(1),
            tables,
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

    /// Hands over a batch of `table` made of `columns` (every column of its schema but the
    /// first, `capture`, which is added here). Nothing is sent for zero rows or an unwanted table.
    pub(crate) fn emit(&mut self, table: Table, columns: Vec<ArrayRef>) -> Result<(), ArrowError> {
        let rows = columns.first().map_or(0, |c| c.len());
        if rows == 0 || !self.wants(table) {
            return Ok(());
        }
        let mut all = Vec::with_capacity(columns.len() + 1);
        all.push(capture_column(self.capture, rows));
        all.extend(columns);
        let batch = RecordBatch::try_new(table.schema(), all)?;
        self.sink.batch(table, batch)
    }
}
