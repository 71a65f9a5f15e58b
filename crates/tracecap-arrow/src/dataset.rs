//! Parquet datasets (being written).
